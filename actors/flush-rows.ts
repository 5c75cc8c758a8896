// What a flush adds to sessions and visitors, summed in memory from the events that were new (not
// duplicates): one row per session and visitor, which the checkpoint's upserts add to the stored rows
// (issues: issue-deltas.ts).
// Deltas of several flushes merge by the upserts' own rules (foldSession, foldVisitor), so applying the
// merged delta once equals applying each in turn. Inputs are never changed. The earliest arrival wins a tie in ts.
import { MAX_STORED_KEYS, mergeCapped } from './capped-merge.ts';
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { CounterDelta } from './project-actor.ts';

/** What one flush adds to the hourly ingest counters (the overview's ingest.last24h), and to which hour. */
export type CounterRow = CounterDelta & { hour: string };

/** One flush's deltas, merged by its actor into what it holds until a checkpoint; `journalId` names its journal row. */
export type FoldEntry = {
  journalId: string;
  sessions: SessionDelta[];
  visitors: VisitorDelta[];
  counters: CounterRow | null;
};

/** What the deltas read of an event: a stored event has all of it but the visitor facts the journal keeps. */
export type FoldSource = Pick<
  EnrichedEvent,
  | 'ts'
  | 'name'
  | 'visitor_id'
  | 'session_id'
  | 'path'
  | 'referrer'
  | 'referrer_domain'
  | 'channel'
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign'
  | 'country'
  | 'region'
  | 'city'
  | 'postal_code'
  | 'timezone'
  | 'latitude'
  | 'longitude'
  | 'browser'
  | 'browser_version'
  | 'os'
  | 'os_version'
  | 'device'
  | 'screen'
  | 'viewport'
  | 'language'
  | 'connection'
  | 'groups'
  | 'user_id'
  | 'traits'
  | 'experiments'
  | 'environment'
  | 'is_internal'
  | 'is_localhost'
  | 'bot_score'
> & { bot_signals: unknown };

/** Events that are not pageviews, engagement reports, vitals or errors: the custom events. */
const isCustom = (name: string) => name !== 'pageview' && name !== 'engagement' && name !== 'speed' && name !== 'error';

export type SessionDelta = {
  id: string;
  visitor_id: string;
  started_at: string;
  last_activity: string;
  pageviews: number;
  events: number;
  /** The earliest and the latest pageview (null without one): their path and when they happened. */
  entry_page: string | null;
  entry_at: string | null;
  exit_page: string | null;
  exit_at: string | null;
  referrer: string | null;
  referrer_domain: string | null;
  channel: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  environment: string;
  is_internal: boolean;
  is_localhost: boolean;
  bot_score: number;
};

export type VisitorDelta = {
  id: string;
  first_seen: string;
  last_seen: string;
  user_id: string | null;
  traits: Record<string, unknown>;
  groups: Record<string, string>;
  experiments: Record<string, string>;
  country: string | null;
  region: string | null;
  city: string | null;
  postal_code: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
  browser: string | null;
  browser_version: string | null;
  os: string | null;
  os_version: string | null;
  device: string | null;
  screen: string | null;
  viewport: string | null;
  language: string | null;
  connection: string | null;
  bot_score: number;
  bot_signals: unknown;
  is_internal: boolean;
};

export function sessionDeltas(fresh: readonly FoldSource[]): SessionDelta[] {
  // Within a flush the upsert's rules apply event by event (foldSession), with two differences: the
  // session's facts come from its earliest event, and localhost is any event's.
  const out = new Map<string, SessionDelta>();
  for (const e of fresh) {
    if (e.session_id === '') continue;
    const s = out.get(e.session_id);
    if (!s) {
      out.set(e.session_id, sessionDelta(e));
      continue;
    }
    if (e.ts < s.started_at) Object.assign(s, firstFacts(e));
    foldSession(s, sessionDelta(e));
    s.is_localhost ||= e.is_localhost;
  }
  return [...out.values()]; // unsorted: FoldMerge sorts the checkpoint's rows once
}

export function visitorDeltas(fresh: readonly FoldSource[]): VisitorDelta[] {
  // The upsert's rules event by event (foldVisitor), in ts order: the newest event's identity, device and
  // place win; traits, groups and experiments merge with the newer keys winning.
  const out = new Map<string, VisitorDelta>();
  for (const e of inTsOrder(fresh)) {
    const v = out.get(e.visitor_id);
    if (v) foldVisitor(v, visitorDelta(e));
    else out.set(e.visitor_id, visitorDelta(e));
  }
  return [...out.values()]; // unsorted: FoldMerge sorts the checkpoint's rows once
}

/** Events mostly arrive in ts order; sort (stably) only when they did not. */
function inTsOrder(events: readonly FoldSource[]): readonly FoldSource[] {
  for (let i = 1; i < events.length; i++) {
    if (events[i]!.ts < events[i - 1]!.ts) return [...events].sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  }
  return events;
}

/** Several flushes' deltas, fed in flush order one flush at a time, as one row a session / visitor by the
 *  upserts' rules, sorted by id (rows are locked in key order). The inputs stay as they were: each key's
 *  first delta is copied, then folded into. */
export class FoldMerge {
  private readonly sessions = new Map<string, SessionDelta>();
  private readonly visitors = new Map<string, VisitorDelta>();
  add(sessions: Iterable<SessionDelta>, visitors: Iterable<VisitorDelta>): void {
    mergeInto(this.sessions, sessions, foldSession);
    mergeInto(this.visitors, visitors, foldVisitor);
  }
  /** Adds what `later` merged, as if its flushes had been fed here after this one's. */
  absorb(later: FoldMerge): void {
    this.add(later.sessions.values(), later.visitors.values());
  }
  sessionRows = () => sorted(this.sessions);
  visitorRows = () => sorted(this.visitors);
}

/** What an actor holds between checkpoints: its committed flushes' journal rows, their counts, and their
 *  session and visitor deltas merged as each flush commits. Held merged, it grows with the sessions and
 *  visitors of the interval, not with its events: kept per flush, a busy project's deltas and the event
 *  strings they share would be most of the server's memory. */
export class PendingFolds {
  readonly journalIds: string[] = [];
  readonly counters: CounterRow[] = [];
  readonly merged = new FoldMerge();

  static of(entries: Iterable<FoldEntry>): PendingFolds {
    const pending = new PendingFolds();
    for (const e of entries) pending.add(e);
    return pending;
  }

  get size(): number {
    return this.journalIds.length;
  }

  /** One committed flush, in commit order. */
  add(entry: FoldEntry): void {
    this.journalIds.push(entry.journalId);
    if (entry.counters) this.counters.push(entry.counters);
    this.merged.add(entry.sessions, entry.visitors);
  }

  /** Adds the flushes `later` holds after these (a failed checkpoint's stay ahead of those since). */
  append(later: PendingFolds): void {
    for (const id of later.journalIds) this.journalIds.push(id);
    for (const c of later.counters) this.counters.push(c);
    this.merged.absorb(later.merged);
  }
}

function mergeInto<T extends { id: string }>(
  out: Map<string, T>,
  deltas: Iterable<T>,
  foldInto: (a: T, b: T) => void,
): Map<string, T> {
  for (const d of deltas) {
    const a = out.get(d.id);
    if (a) foldInto(a, d);
    else out.set(d.id, { ...d });
  }
  return out;
}

const sorted = <T extends { id: string }>(rows: Map<string, T>) => [...rows.values()].sort(byId);

/** upsert_sessions.sql's update of stored row `a` by delta `b`, in memory (mutates `a`). */
function foldSession(a: SessionDelta, b: SessionDelta): void {
  if (b.started_at < a.started_at) a.started_at = b.started_at;
  if (b.last_activity > a.last_activity) a.last_activity = b.last_activity;
  a.pageviews += b.pageviews;
  a.events += b.events;
  if (b.entry_at !== null && (a.entry_at === null || b.entry_at < a.entry_at))
    ((a.entry_page = b.entry_page), (a.entry_at = b.entry_at));
  if (b.exit_at !== null && (a.exit_at === null || b.exit_at >= a.exit_at))
    ((a.exit_page = b.exit_page), (a.exit_at = b.exit_at));
  a.is_internal ||= b.is_internal;
  if (b.bot_score > a.bot_score) a.bot_score = b.bot_score;
}

/** upsert_visitors.sql's update of stored row `a` by delta `b`, in memory (mutates `a`). */
function foldVisitor(a: VisitorDelta, b: VisitorDelta): void {
  if (b.first_seen < a.first_seen) a.first_seen = b.first_seen;
  if (b.last_seen > a.last_seen) a.last_seen = b.last_seen;
  a.user_id = b.user_id ?? a.user_id;
  if (hasKeys(b.traits)) a.traits = mergeCapped(a.traits, b.traits, MAX_STORED_KEYS.traits);
  if (hasKeys(b.groups)) a.groups = mergeCapped(a.groups, b.groups, MAX_STORED_KEYS.groups);
  if (hasKeys(b.experiments)) a.experiments = mergeCapped(a.experiments, b.experiments, MAX_STORED_KEYS.experiments);
  ((a.country = b.country),
    (a.region = b.region),
    (a.city = b.city),
    (a.postal_code = b.postal_code),
    (a.timezone = b.timezone));
  ((a.latitude = b.latitude),
    (a.longitude = b.longitude),
    (a.browser = b.browser),
    (a.browser_version = b.browser_version));
  ((a.os = b.os), (a.os_version = b.os_version), (a.device = b.device));
  ((a.screen = b.screen ?? a.screen), (a.viewport = b.viewport ?? a.viewport), (a.language = b.language ?? a.language));
  a.connection = b.connection ?? a.connection;
  if (b.bot_score >= a.bot_score) ((a.bot_signals = b.bot_signals), (a.bot_score = b.bot_score));
  a.is_internal ||= b.is_internal;
}

function sessionDelta(e: FoldSource): SessionDelta {
  const pageview = e.name === 'pageview';
  return {
    id: e.session_id,
    visitor_id: e.visitor_id,
    started_at: e.ts,
    last_activity: e.ts,
    pageviews: pageview ? 1 : 0,
    events: isCustom(e.name) ? 1 : 0,
    entry_page: pageview ? e.path : null,
    entry_at: pageview ? e.ts : null,
    exit_page: pageview ? e.path : null,
    exit_at: pageview ? e.ts : null,
    referrer: e.referrer,
    referrer_domain: e.referrer_domain,
    channel: e.channel,
    utm_source: e.utm_source,
    utm_medium: e.utm_medium,
    utm_campaign: e.utm_campaign,
    country: e.country,
    device: e.device,
    browser: e.browser,
    os: e.os,
    environment: e.environment,
    is_internal: e.is_internal,
    is_localhost: e.is_localhost,
    bot_score: e.bot_score,
  };
}

/** What a session's first event says of it: who, from where, on what (kept from the first delta stored). */
function firstFacts(e: FoldSource) {
  return {
    id: e.session_id,
    visitor_id: e.visitor_id,
    referrer: e.referrer,
    referrer_domain: e.referrer_domain,
    channel: e.channel,
    utm_source: e.utm_source,
    utm_medium: e.utm_medium,
    utm_campaign: e.utm_campaign,
    country: e.country,
    device: e.device,
    browser: e.browser,
    os: e.os,
    environment: e.environment,
  };
}

function visitorDelta(e: FoldSource): VisitorDelta {
  return {
    id: e.visitor_id,
    first_seen: e.ts,
    last_seen: e.ts,
    user_id: e.user_id,
    traits: e.traits,
    groups: e.groups,
    experiments: e.experiments,
    country: e.country,
    region: e.region,
    city: e.city,
    postal_code: e.postal_code,
    timezone: e.timezone,
    latitude: e.latitude,
    longitude: e.longitude,
    browser: e.browser,
    browser_version: e.browser_version,
    os: e.os,
    os_version: e.os_version,
    device: e.device,
    screen: e.screen,
    viewport: e.viewport,
    language: e.language,
    connection: e.connection,
    bot_score: e.bot_score,
    bot_signals: e.bot_signals,
    is_internal: e.is_internal,
  };
}

/** Whether an object has a key (its first ends the loop: no array of keys is made). */
export const hasKeys = (o: object): boolean => {
  for (const _ in o) return true;
  return false;
};

/** Rows are locked in key order by every writer, so concurrent ones queue instead of deadlocking. */
export const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// Enrichment: one validated event in, one storable row out, through named steps (identity, page,
// referrer, user agent, geo, bot score, traffic class). No I/O here: lookups are injected.
import { scrubErrorProps } from '../error-tracking/breadcrumbs.ts';
import { timeOrderedId } from '../sdk/ids.ts';
import type { BotScore } from './bot-score.ts';
import { scoreBot } from './bot-score.ts';
import type { IngestEvent } from './event-schema.ts';
import { issueFor } from './error-issue.ts';
import { countryFromHeaders, type Geo, type GeoLookup } from './geo.ts';
import { isoTime, readIsoTime } from './iso-time.ts';
import { parsePageUrl } from './page-url.ts';
import { classifyReferrer } from './referrer.ts';
import { parseUserAgent } from './user-agent.ts';
import { hashVisitor } from './visitor-hash.ts';

export type Lookups = { geo: GeoLookup; isDatacenterIp: (ip: string | null) => boolean | null };

/** What the request says about the sender, shared by every event of the batch. */
export type RequestFacts = {
  projectId: string;
  salt: string;
  /** The salt before the last daily rotation, kept 48 hours: a visitor's live session goes on past it. */
  previousSalt?: string | null;
  keyKind: 'public' | 'secret';
  ip: string;
  userAgent: string | null;
  headers: Record<string, string>;
  trustProxy: boolean;
  internal: boolean;
  receivedAt: number;
};

export type EnrichedEvent = {
  project_id: string;
  ts: string;
  id: string;
  name: string;
  visitor_id: string;
  /** The hashed visitor's id under the previous salt: the actor keeps it when it names a live session. */
  previous_visitor_id?: string | null;
  session_id: string;
  path: string | null;
  route: string | null;
  title: string | null;
  host: string | null;
  referrer: string | null;
  referrer_domain: string | null;
  channel: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
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
  props: Record<string, unknown>;
  groups: Record<string, string>;
  user_id: string | null;
  traits: Record<string, unknown>;
  experiments: Record<string, string>;
  release: string | null;
  environment: 'production' | 'preview';
  is_internal: boolean;
  is_localhost: boolean;
  bot_score: number;
  bot_signals: BotScore['signals'];
  lcp: number | null;
  inp: number | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
  element: string | null;
  /** The issue an error event joins (null for other events, and for bot or localhost errors). */
  issue_id: string | null;
  issue_title: string | null;
  issue_culprit: string | null;
  issue_type: string | null;
  issue_level: string | null;
  /** Not stored: the verdict, for the log stream. */
  bot: BotScore;
  /** Not stored: the client's own session id, a hint for the sessionizer. */
  client_session: string | null;
  /** Not stored: `ts` in ms since the epoch, for the sessionizer and the realtime window. */
  at: number;
};

/** An event's time in ms since the epoch: its `ts`, or else its request's arrival; NaN for a `ts` that
 *  names no real moment. Read once an event: the ingest route checks it (tsProblem) and hands it to enrich. */
export const eventTime = (e: IngestEvent, receivedAt: number): number => (e.ts ? readIsoTime(e.ts) : receivedAt);

export function enrich(
  e: IngestEvent,
  facts: RequestFacts,
  lookups: Lookups,
  at = eventTime(e, facts.receivedAt),
): EnrichedEvent {
  // A server forwarding its visitor's address and agent (secret key, `context`): the request's own CDN
  // country and client hints describe that server, not the visitor, so they go with what they came with.
  const forwardedIp = (facts.keyKind === 'secret' && e.context?.ip) || null;
  const forwardedAgent = facts.keyKind === 'secret' ? (e.context?.userAgent ?? null) : null;
  const ip = forwardedIp ?? facts.ip;
  const userAgent = forwardedAgent ?? facts.userAgent ?? '';
  const page = parsePageUrl(e.page?.url ?? null, e.page?.path ?? null);
  const ref = classifyReferrer(e.page?.referrer ?? null, page.host, page.utm);
  const ua = parseUserAgent(userAgent);
  const geo = locate(
    ip,
    forwardedIp === null && facts.trustProxy ? countryFromHeaders(facts.headers) : null,
    lookups.geo,
  );
  const bot = scoreBot({
    ua,
    signals: e.signals ?? null,
    datacenter: lookups.isDatacenterIp(ip),
    clientHintsBrand: forwardedAgent === null ? (facts.headers['sec-ch-ua'] ?? null) : null,
  });
  const props =
    e.name === 'error' && e.props ? (scrubErrorProps(e.props) as Record<string, unknown>) : (e.props ?? NONE);
  const isLocal = page.isLocalhost;
  const issue = e.name === 'error' ? issueFor(props, bot.score, isLocal) : null;
  return {
    project_id: facts.projectId,
    ts: isoTime(at),
    id: e.id ?? `srv_${timeOrderedId(facts.receivedAt)}`,
    name: e.name,
    visitor_id: e.visitor ?? hashVisitor(facts.salt, ip, userAgent),
    previous_visitor_id: e.visitor || !facts.previousSalt ? null : hashVisitor(facts.previousSalt, ip, userAgent),
    session_id: '',
    path: page.path,
    route: e.page?.route ?? null,
    title: e.page?.title ?? null,
    host: page.host,
    referrer: ref.referrer,
    referrer_domain: ref.referrerDomain,
    channel: ref.channel,
    utm_source: page.utm.source,
    utm_medium: page.utm.medium,
    utm_campaign: page.utm.campaign,
    utm_term: page.utm.term,
    utm_content: page.utm.content,
    country: geo.country,
    region: geo.region,
    city: geo.city,
    postal_code: geo.postalCode,
    timezone: geo.timezone,
    latitude: geo.latitude,
    longitude: geo.longitude,
    browser: ua.browser,
    browser_version: ua.browserVersion,
    os: ua.os,
    os_version: ua.osVersion,
    device: ua.device,
    screen: e.device?.screen ?? null,
    viewport: e.device?.viewport ?? null,
    language: e.device?.language ?? null,
    connection: e.device?.connection ?? null,
    props,
    groups: e.groups ?? NONE,
    user_id: e.user?.id ?? null,
    traits: e.user?.traits ?? NONE,
    experiments: e.experiments ?? NONE,
    release: e.release ?? null,
    environment: e.environment ?? 'production',
    is_internal: facts.internal,
    is_localhost: isLocal,
    bot_score: bot.score,
    bot_signals: bot.signals,
    bot,
    lcp: e.vitals?.lcp ?? null,
    inp: e.vitals?.inp ?? null,
    cls: e.vitals?.cls ?? null,
    fcp: e.vitals?.fcp ?? null,
    ttfb: e.vitals?.ttfb ?? null,
    element: e.vitals?.element ?? null,
    // Named one by one, not spread: every row then has the same shape, built in one go.
    issue_id: issue?.issue_id ?? null,
    issue_title: issue?.issue_title ?? null,
    issue_culprit: issue?.issue_culprit ?? null,
    issue_type: issue?.issue_type ?? null,
    issue_level: issue?.issue_level ?? null,
    client_session: e.session ?? null,
    at,
  };
}

/** What an event without props, groups, traits or experiments holds: one frozen object for all of them.
 *  A row waits for its commit, and most rows have none of the four: their empty objects were a fifth of
 *  what a row kept alive meanwhile (938 → 728 bytes under bench:ingest), which every young-generation
 *  collection copies. Nothing changes these objects in place (a frozen one would throw). */
const NONE: Record<string, never> = Object.freeze({});

/** Geo from the IP database; the country of a CDN's header (`cdn`: read only when the operator trusts the
 *  proxy, and the address is the request's own) wins. */
function locate(ip: string, cdn: string | null, geo: GeoLookup): Geo {
  const found = geo.lookup(ip);
  return cdn && cdn !== found.country
    ? { country: cdn, region: null, city: null, postalCode: null, timezone: null, latitude: null, longitude: null }
    : found;
}

/** The window an event's time (eventTime) must fall in: at most 5 min ahead, and for a public key within
 *  the last 24 h, for a secret key within the project's retention. An event without `ts` is at `now`. */
export function tsProblem(at: number, keyKind: 'public' | 'secret', now: number, retentionDays: number): string | null {
  if (Number.isNaN(at)) return 'ts must be an ISO 8601 date-time on a day its month has';
  if (at > now + 5 * 60_000) return 'ts must be at most 5 minutes in the future';
  if (keyKind === 'public' && at < now - 24 * 3_600_000) return 'ts must lie within the last 24 hours for a public key';
  if (keyKind === 'secret' && at < now - retentionDays * 86_400_000)
    return `ts must lie within the project's retention (${retentionDays} days)`;
  return null;
}

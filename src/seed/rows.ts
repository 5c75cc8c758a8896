// Seeded traffic in the shapes the flush writes (src/db/flush-text.ts): an event row, a speed sample, a
// session and a visitor row, so one function encodes each kind of row. Knows the fields, not the transport.
import type { SessionDelta, VisitorDelta } from '../../actors/flush-rows.ts';
import type { EventRow, SpeedRow } from '../db/flush-text.ts';
import type { Agent } from './catalog.ts';
import type { SeedEvent, SeedSession, SeedVisitor } from './generate.ts';

/** A session's event row: the fields its events share filled in, the event's own fields (`eventOf` sets
 *  them) blank. One object a session, changed event by event: the encoder reads it before the next. */
export function sessionEvent(s: SeedSession): EventRow {
  const a = s.agent;
  const p = s.place;
  const u = s.source.utm;
  return {
    ts: '',
    id: '',
    name: '',
    visitor_id: s.visitorId,
    session_id: s.id,
    path: null,
    route: null,
    title: null,
    host: s.host,
    referrer: s.source.referrer,
    referrer_domain: s.source.referrerDomain,
    channel: s.source.channel,
    utm_source: u?.source ?? null,
    utm_medium: u?.medium ?? null,
    utm_campaign: u?.campaign ?? null,
    utm_term: u?.term ?? null,
    utm_content: u?.content ?? null,
    country: p.country,
    region: p.region,
    city: p.city,
    ...agentFields(a),
    language: p.language,
    connection: null,
    props: {},
    groups: {},
    user_id: s.userId,
    release: s.release,
    environment: s.environment,
    is_internal: s.isInternal,
    is_localhost: false,
    bot_score: s.botScore,
    issue_id: null,
  };
}

const NO_PROPS = {};

/** Sets `row` (sessionEvent's) to event `e`, its time `ts` (ISO). */
export function eventOf(row: EventRow, e: SeedEvent, ts: string): EventRow {
  row.ts = ts;
  row.id = e.id;
  row.name = e.name;
  row.path = e.page.path;
  row.route = e.page.route;
  row.title = e.page.title;
  row.props = e.props ?? NO_PROPS;
  row.issue_id = e.issue ?? null;
  return row;
}

/** The speed sample of a `speed` event (`e.vitals` set), its time `ts` (ISO). */
export function speedOf(projectId: string, s: SeedSession, e: SeedEvent, ts: string): SpeedRow {
  const x = e.vitals!;
  return {
    project_id: projectId,
    ts,
    id: e.id,
    visitor_id: s.visitorId,
    path: e.page.path,
    route: e.page.route,
    device: s.agent.device,
    country: s.place.country,
    environment: s.environment,
    lcp: x.lcp,
    inp: x.inp,
    cls: x.cls,
    fcp: x.fcp,
    ttfb: x.ttfb,
    element: x.element,
    bot_score: s.botScore,
  };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function sessionRow(s: SeedSession): SessionDelta {
  const u = s.source.utm;
  return {
    id: s.id,
    visitor_id: s.visitorId,
    started_at: iso(s.startedAt)!,
    last_activity: iso(s.lastActivity)!,
    pageviews: s.pageviews,
    events: s.customEvents,
    entry_page: s.entryPage,
    entry_at: iso(s.entryAt),
    exit_page: s.exitPage,
    exit_at: iso(s.exitAt),
    referrer: s.source.referrer,
    referrer_domain: s.source.referrerDomain,
    channel: s.source.channel,
    utm_source: u?.source ?? null,
    utm_medium: u?.medium ?? null,
    utm_campaign: u?.campaign ?? null,
    country: s.place.country,
    device: s.agent.device,
    browser: s.agent.browser,
    os: s.agent.os,
    environment: s.environment,
    is_internal: s.isInternal,
    is_localhost: false,
    bot_score: s.botScore,
  };
}

export function visitorRow(v: SeedVisitor): VisitorDelta {
  const a = v.agent;
  const p = v.place;
  return {
    id: v.id,
    first_seen: iso(v.firstSeen)!,
    last_seen: iso(v.lastSeen)!,
    user_id: v.userId,
    traits: v.traits,
    groups: {},
    experiments: {},
    country: p.country,
    region: p.region,
    city: p.city,
    postal_code: null,
    timezone: null,
    latitude: null,
    longitude: null,
    ...agentFields(a),
    language: p.language,
    connection: null,
    bot_score: v.botScore,
    bot_signals: {},
    is_internal: v.isInternal,
  };
}

/** The device columns events and visitors both carry, from the seeded user agent. */
function agentFields(a: Agent) {
  return {
    browser: a.browser,
    browser_version: a.browserVersion,
    os: a.os,
    os_version: a.osVersion || null,
    device: a.device,
    screen: a.screen || null,
    viewport: a.viewport || null,
  };
}

// The stored shape of seeded traffic: column lists of events, sessions, visitors and speed_samples, and
// each generated visitor turned into rows (arrays in column order). Knows the tables, not the transport.
import type { SeedSession, SeedVisitor } from './generate.ts';

export type Table = { name: string; columns: readonly string[]; types: Record<string, string> };
export type Rows = { events: unknown[][]; sessions: unknown[][]; visitors: unknown[][]; speed: unknown[][] };

const EVENT_OWN = ['ts', 'id', 'name', 'path', 'route', 'title', 'props'] as const;
const EVENT_SESSION = ['project_id', 'visitor_id', 'session_id', 'host', 'referrer', 'referrer_domain', 'channel', 'utm_source',
  'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'country', 'region', 'city', 'browser', 'browser_version', 'os',
  'os_version', 'device', 'screen', 'viewport', 'language', 'user_id', 'release', 'environment', 'is_internal', 'is_localhost',
  'bot_score'] as const;

const TYPES: Record<string, string> = {
  ts: 'timestamptz', started_at: 'timestamptz', last_activity: 'timestamptz', entry_at: 'timestamptz', exit_at: 'timestamptz',
  first_seen: 'timestamptz', last_seen: 'timestamptz',
  props: 'jsonb', traits: 'jsonb', is_internal: 'boolean', is_localhost: 'boolean', bot_score: 'smallint',
  pageviews: 'integer', events: 'integer', lcp: 'float8', inp: 'float8', cls: 'float8', fcp: 'float8', ttfb: 'float8',
};

export const tables = {
  events: { name: 'events', columns: [...EVENT_OWN, ...EVENT_SESSION], types: TYPES },
  sessions: { name: 'sessions', columns: ['project_id', 'id', 'visitor_id', 'started_at', 'last_activity', 'pageviews', 'events',
    'entry_page', 'entry_at', 'exit_page', 'exit_at', 'referrer', 'referrer_domain', 'channel', 'utm_source', 'utm_medium', 'utm_campaign', 'country',
    'device', 'browser', 'os', 'environment', 'is_internal', 'is_localhost', 'bot_score'], types: TYPES },
  visitors: { name: 'visitors', columns: ['project_id', 'id', 'first_seen', 'last_seen', 'user_id', 'traits', 'country', 'region',
    'city', 'browser', 'browser_version', 'os', 'os_version', 'device', 'screen', 'viewport', 'language', 'bot_score', 'is_internal'], types: TYPES },
  speed: { name: 'speed_samples', columns: ['project_id', 'ts', 'event_id', 'visitor_id', 'path', 'route', 'device', 'country',
    'environment', 'lcp', 'inp', 'cls', 'fcp', 'ttfb', 'element', 'bot_score'], types: TYPES },
} satisfies Record<string, Table>;

/** The columns every event of a session shares, in EVENT_SESSION order. */
export function sessionPart(projectId: string, s: SeedSession): unknown[] {
  const a = s.agent;
  const p = s.place;
  const u = s.source.utm;
  return [projectId, s.visitorId, s.id, s.host, s.source.referrer, s.source.referrerDomain, s.source.channel, u?.source ?? null,
    u?.medium ?? null, u?.campaign ?? null, u?.term ?? null, u?.content ?? null, p.country, p.region, p.city, a.browser,
    a.browserVersion, a.os, a.osVersion || null, a.device, a.screen || null, a.viewport || null, p.language, s.userId, s.release,
    s.environment, s.isInternal, false, s.botScore];
}

export function sessionRow(projectId: string, s: SeedSession): unknown[] {
  const u = s.source.utm;
  return [projectId, s.id, s.visitorId, new Date(s.startedAt), new Date(s.lastActivity), s.pageviews, s.customEvents, s.entryPage,
    s.entryAt === null ? null : new Date(s.entryAt), s.exitPage, s.exitAt === null ? null : new Date(s.exitAt), s.source.referrer, s.source.referrerDomain, s.source.channel, u?.source ?? null, u?.medium ?? null,
    u?.campaign ?? null, s.place.country, s.agent.device, s.agent.browser, s.agent.os, s.environment, s.isInternal, false, s.botScore];
}

export function visitorRow(projectId: string, v: SeedVisitor): unknown[] {
  const a = v.agent;
  const p = v.place;
  return [projectId, v.id, new Date(v.firstSeen), new Date(v.lastSeen), v.userId, v.traits, p.country, p.region, p.city,
    a.browser, a.browserVersion, a.os, a.osVersion || null, a.device, a.screen || null, a.viewport || null, p.language,
    v.botScore, v.isInternal];
}

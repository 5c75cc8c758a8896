// The visitor list and the session list: who (and which visits) had events in the range that pass the
// traffic, environment and dimension filters, most recent first, in keyset pages.
import type { Sql } from 'postgres';
import type { Keyset } from './cursor.ts';
import { whereSql, type Scope } from './filters.ts';

export type VisitorListRow = {
  id: string;
  last_event: Date;
  pageviews: number;
  sessions: number;
  events: number;
  first_seen: Date;
  last_seen: Date;
  user_id: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  is_internal: boolean;
  bot_score: number;
};

export type SessionListRow = {
  id: string;
  last_event: Date;
  visitor_id: string;
  started_at: Date;
  last_activity: Date;
  pageviews: number;
  events: number;
  entry_page: string | null;
  exit_page: string | null;
  referrer_domain: string | null;
  channel: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  bot_score: number;
  is_internal: boolean;
};

const before = (sql: Sql, after: Keyset | null) =>
  after ? sql`where (h.last_event, h.key) < (${after.at}, ${after.id})` : sql``;

export function listVisitors(sql: Sql, scope: Scope, after: Keyset | null, limit: number) {
  return sql<VisitorListRow[]>`
    with h as (
      select e.visitor_id as key, max(e.ts) as last_event, count(*) filter (where e.name = 'pageview')::int as pageviews,
             count(distinct nullif(e.session_id, ''))::int as sessions, -- '': an engagement report outside a session
             count(*) filter (where e.name not in ('pageview', 'engagement', 'speed', 'error'))::int as events
      from events e where ${whereSql(sql, scope)}
      group by e.visitor_id
    )
    select v.id, h.last_event, h.pageviews, h.sessions, h.events, v.first_seen, v.last_seen, v.user_id, v.country,
           v.device, v.browser, v.os, v.is_internal, v.bot_score
    from h join visitors v on v.project_id = ${scope.projectIds[0]!} and v.id = h.key
    ${before(sql, after)}
    order by h.last_event desc, h.key desc
    limit ${limit}`;
}

export function listSessions(sql: Sql, scope: Scope, after: Keyset | null, limit: number) {
  return sql<SessionListRow[]>`
    with h as (
      select e.session_id as key, max(e.ts) as last_event from events e
      where ${whereSql(sql, scope)} and e.session_id <> ''
      group by e.session_id
    )
    select s.id, h.last_event, s.visitor_id, s.started_at, s.last_activity, s.pageviews, s.events, s.entry_page, s.exit_page,
           s.referrer_domain, s.channel, s.country, s.device, s.browser, s.os, s.bot_score, s.is_internal
    from h join sessions s on s.project_id = ${scope.projectIds[0]!} and s.id = h.key
    ${before(sql, after)}
    order by h.last_event desc, h.key desc
    limit ${limit}`;
}

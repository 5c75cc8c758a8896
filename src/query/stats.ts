// The statistic block: one SQL statement per range (sessions grouped from the range's events), then
// the shape with previous values and change. Metric definitions are DESIGN.md's "Metric definitions".
import type { PendingQuery, Sql } from 'postgres';
import type { Fragment } from './dimensions.ts';
import { visitorKeySql, whereSql, type Scope } from './filters.ts';
import type { ReadScope } from './scope.ts';
import { rollupStats } from './rollup/stats.ts';

export type StatsRow = { visitors: number; sessions: number; pageviews: number; bounces: number; duration_ms: number };
export type Stat = { value: number; previous: number; change: number | null };
export type StatBlock = Record<
  'visitors' | 'sessions' | 'pageviews' | 'pagesPerSession' | 'bounceRate' | 'sessionDurationMs',
  Stat
>;

/** Names that are not custom events: a session with one pageview and only these bounced. */
export const BUILT_IN_EVENTS = ['pageview', 'engagement', 'speed', 'error'];

export async function readStats(sql: Sql, scope: ReadScope): Promise<StatBlock> {
  const [current, previous] = await Promise.all([runStats(sql, scope.current), runStats(sql, scope.previous)]);
  return shapeStats(current, previous);
}

export async function runStats(sql: Sql, scope: Scope): Promise<StatsRow> {
  if (scope.projectIds.length === 0) return { visitors: 0, sessions: 0, pageviews: 0, bounces: 0, duration_ms: 0 };
  const rolled = await rollupStats(sql, scope);
  if (rolled) return rolled;
  const [row] = await statsSql(sql, scope);
  return row!;
}

/** Sessions are the session ids with a non-engagement event in range; engagement only extends activity. */
export function sessionsSql(sql: Sql, scope: Scope): Fragment {
  return sql`
    select e.project_id, e.session_id, min(e.visitor_id) as visitor_id, min(e.ts) as first_ts,
      count(*) filter (where e.name = 'pageview') as pageviews,
      count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
      extract(epoch from max(e.ts) - min(e.ts)) * 1000 as duration_ms
    from events e
    where ${whereSql(sql, scope)}
    group by e.project_id, e.session_id
    having count(*) filter (where e.name <> 'engagement') > 0`;
}

export function statsSql(sql: Sql, scope: Scope): PendingQuery<StatsRow[]> {
  return sql<StatsRow[]>`
    with s as (${sessionsSql(sql, scope)})
    select count(distinct ${visitorKeySql(sql, scope, 's')})::int as visitors, count(*)::int as sessions,
      coalesce(sum(s.pageviews), 0)::int as pageviews,
      (count(*) filter (where s.pageviews = 1 and s.custom = 0))::int as bounces,
      coalesce(sum(s.duration_ms), 0)::float8 as duration_ms
    from s`;
}

export function shapeStats(cur: StatsRow, prev: StatsRow): StatBlock {
  const derived = (r: StatsRow) => ({
    visitors: r.visitors,
    sessions: r.sessions,
    pageviews: r.pageviews,
    pagesPerSession: ratio(r.pageviews, r.sessions),
    bounceRate: ratio(r.bounces, r.sessions),
    sessionDurationMs: ratio(r.duration_ms, r.sessions),
  });
  const a = derived(cur);
  const b = derived(prev);
  const stat = (k: keyof typeof a): Stat => ({ value: a[k], previous: b[k], change: change(a[k], b[k]) });
  return {
    visitors: stat('visitors'),
    sessions: stat('sessions'),
    pageviews: stat('pageviews'),
    pagesPerSession: stat('pagesPerSession'),
    bounceRate: stat('bounceRate'),
    sessionDurationMs: stat('sessionDurationMs'),
  };
}

/** A ratio over no sessions is 0, not NaN. */
export const ratio = (n: number, d: number) => (d === 0 ? 0 : n / d);
export const change = (value: number, previous: number) => (previous === 0 ? null : (value - previous) / previous);

// The across-projects breakdown's rows (key = project) from the day rollups, in the shape of
// metrics.ts groupedSql, for the metrics the rollups carry. Null when they cannot answer.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { rollupsReady } from './build.ts';
import { rollupDays } from './eligible.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { rangeVisitors } from './visitors.ts';

const METRICS = new Set([
  'visitors',
  'pageviews',
  'events',
  'sessions',
  'bounce_rate',
  'session_duration',
  'pages_per_session',
]);

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupProjectGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (metrics.some((m) => !METRICS.has(m.name))) return null;
  const days = rollupDays(scope);
  if (!days || !(await rollupsReady(sql, scope.projectIds, days.from, days.to))) return null;
  const inRange = sql`project_id = any(${scope.projectIds}) and day >= ${days.from}::date and day < ${days.to}::date`;
  const sessions = sql`(coalesce(t.sessions, 0) + coalesce(f.sessions, 0))`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`v.visitors::float8`,
      pageviews: sql`coalesce(t.pageviews, 0)::float8`,
      events: sql`coalesce(t.events, 0)::float8`,
      sessions: sql`${sessions}::float8`,
      bounce_rate: sql`coalesce(case when ${sessions} > 0 then ((coalesce(t.bounces, 0) + coalesce(f.bounces, 0))::numeric / ${sessions}::numeric)::float8 end, 0)`,
      session_duration: sql`coalesce(case when ${sessions} > 0 then ((coalesce(t.duration_ms, 0) + coalesce(f.duration_ms, 0)) / ${sessions}::numeric)::float8 end, 0)`,
      pages_per_session: sql`coalesce(case when ${sessions} > 0 then (coalesce(t.pageviews, 0) + coalesce(f.pageviews, 0))::float8 / ${sessions}::float8 end, 0)`,
    })[m.name]!;
  const counts = await rangeVisitors(sql, scope.projectIds, days);
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with ${splitCtes(sql, scope, days)},
    fix as (
      select c.project_id, sum(c.sessions) as sessions, sum(c.pageviews) as pageviews, sum(c.bounces) as bounces, sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, () => sql`null::timestamp`)}) c group by 1
    ), t as (
      select project_id, sum(sessions) as sessions, sum(pageviews) as pageviews, sum(events) as events, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms
      from rollup_day_totals where ${inRange} and sel = ${days.sel} group by 1
    ), v as (
      select project_id, visitors from unnest(${[...counts.keys()]}::text[], ${[...counts.values()]}::int[]) as c(project_id, visitors)
      where visitors > 0
    )
    select v.project_id as key, v.visitors, (sum(v.visitors) over ())::int as all_visitors, array[${values}]::float8[] as values
    from v left join t on t.project_id = v.project_id left join fix f on f.project_id = v.project_id`,
  };
}

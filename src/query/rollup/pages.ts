// The page breakdown's rows (key = events.path) from the page day rollups, in the shape of metrics.ts
// groupedSql, for one project and the metrics the rollups carry. Null when they cannot answer.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { rollupsReady } from './build.ts';
import { rollupDays } from './eligible.ts';
import { pageFixCtes } from './page-fix.ts';
import { rangeValue, type Days } from './range-values.ts';
import { splitCtes } from './split.ts';
import { rangeVisitors } from './visitors.ts';

const METRICS = new Set([
  'visitors',
  'pageviews',
  'events',
  'sessions',
  'bounce_rate',
  'session_duration',
  'pages_per_session',
  'time_on_page',
  'scroll_depth',
]);

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupPageGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || metrics.some((m) => !METRICS.has(m.name))) return null;
  const days = rollupDays(scope);
  if (!days || !(await rollupsReady(sql, scope.projectIds, days.from, days.to))) return null;
  const project = scope.projectIds[0]!;
  const visitors = await rangeValue(sql, project, days, 'page_visitors', () => pageVisitors(sql, project, days));
  const all = (await rangeVisitors(sql, [project], days)).get(project)!;
  const sessions = sql`(p.sessions + coalesce(f.sessions, 0))`;
  const mean = (sum: Fragment, n: Fragment) => sql`case when ${n} > 0 then ${sum} / ${n} else 0 end`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`v.visitors::float8`,
      pageviews: sql`p.pageviews::float8`,
      events: sql`p.events::float8`,
      sessions: sql`${sessions}::float8`,
      bounce_rate: mean(sql`(p.bounces + coalesce(f.bounces, 0))::numeric`, sql`${sessions}::numeric`),
      session_duration: mean(sql`(p.duration_ms + coalesce(f.duration_ms, 0))`, sql`${sessions}::numeric`),
      pages_per_session: mean(
        sql`(p.session_pageviews + coalesce(f.session_pageviews, 0))::float8`,
        sql`${sessions}::float8`,
      ),
      time_on_page: mean(
        sql`(p.time_sum + coalesce(f.time_sum, 0))`,
        sql`(p.time_count + coalesce(f.time_count, 0))::float8`,
      ),
      scroll_depth: mean(
        sql`(p.scroll_sum + coalesce(f.scroll_sum, 0))`,
        sql`(p.scroll_count + coalesce(f.scroll_count, 0))::float8`,
      ),
    })[m.name]!;
  const values = metrics.map((m) => sql`(${value(m)})::float8`).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with ${splitCtes(sql, scope, days)}, ${pageFixCtes(sql, scope)},
    p as (
      select page, sum(pageviews) as pageviews, sum(events) as events, sum(sessions) as sessions, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms, sum(session_pageviews) as session_pageviews, sum(time_sum) as time_sum,
        sum(time_count) as time_count, sum(scroll_sum) as scroll_sum, sum(scroll_count) as scroll_count
      from rollup_day_pages
      where project_id = ${project} and day >= ${days.from}::date and day < ${days.to}::date and sel = ${days.sel}
      group by 1
    ), v as (
      select page, visitors from unnest(${Object.keys(visitors)}::text[], ${Object.values(visitors)}::int[]) as c(page, visitors)
    )
    select p.page as key, v.visitors, ${all}::int as all_visitors, array[${values}]::float8[] as values
    from p join v on v.page = p.page left join page_fix f on f.path = p.page`,
  };
}

/** Distinct visitors per page over the range, by page. */
async function pageVisitors(sql: Sql, project: string, days: Days): Promise<Record<string, number>> {
  const rows = await sql<{ page: string; visitors: number }[]>`
    select page, count(*)::int as visitors from (
      select page, visitor_hash from rollup_day_page_visitors
      where project_id = ${project} and day >= ${days.from}::date and day < ${days.to}::date and sel_mask & ${1 << days.sel} <> 0
      group by 1, 2
    ) x group by 1`;
  return Object.fromEntries(rows.map((r) => [r.page, r.visitors]));
}

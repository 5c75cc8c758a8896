// The across-projects breakdown's rows (key = project) from the day rollups, in the shape of
// metrics.ts groupedSql, for the metrics the rollups carry; the part of the range they do not hold
// (segments.ts) is counted from events as the builder would and added, as stats.ts does. Null when they
// cannot answer.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { hasRawPart, planRange, rawCtes } from './segments.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { SESSION_METRICS } from './eligible.ts';
import { planVisitors } from './visitors.ts';
import { rollupFilteredProjectStats } from './stats.ts';
import type { StatsRow } from '../stats.ts';

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupProjectGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (metrics.some((m) => !SESSION_METRICS.has(m.name))) return null;
  if (scope.filters.length > 0) return filteredProjectGroups(sql, scope, metrics);
  const plan = await planRange(sql, scope, { patch: true });
  if (!plan) return null;
  const raw = hasRawPart(plan);
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
  const counts = await planVisitors(sql, scope, plan);
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with ${raw ? sql`${rawCtes(sql, scope, plan)},` : sql``} ${splitCtes(sql, scope, plan, raw)},
    more as (${counts.more}),
    fix as (
      select c.project_id, sum(c.sessions) as sessions, sum(c.pageviews) as pageviews, sum(c.bounces) as bounces, sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, () => sql`null::timestamp`)}) c group by 1
    ), t as (
      select project_id, sum(sessions) as sessions, sum(pageviews) as pageviews, sum(events) as events, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms
      from (
        select project_id, sessions, pageviews, events, bounces, duration_ms from rollup_day_totals
        where project_id = any(${scope.projectIds}) and day = any(${plan.rolled}::date[]) and sel = ${plan.sel}
        ${raw ? sql`union all select project_id, sessions, pageviews, events, bounces, duration_ms from raw_days` : sql``}
      ) x group by 1
    ), v as (
      select c.project_id, c.visitors + coalesce(m.n, 0) as visitors
      from unnest(${[...counts.rolled.keys()]}::text[], ${[...counts.rolled.values()]}::int[]) as c(project_id, visitors)
      left join more m on m.project_id = c.project_id
      where c.visitors + coalesce(m.n, 0) > 0
    )
    select v.project_id as key, v.visitors, (sum(v.visitors) over ())::int as all_visitors, array[${values}]::float8[] as values
    from v left join t on t.project_id = v.project_id left join fix f on f.project_id = v.project_id`,
  };
}

/** Under filters, each project's row from its filtered statistic block (stats.ts), as groupedSql's rows: the
 *  block carries every session metric but events. A project without a visitor under them has no row. */
async function filteredProjectGroups(sql: Sql, scope: Scope, metrics: Metric[]): Promise<{ grouped: Fragment } | null> {
  if (metrics.some((m) => m.name === 'events')) return null;
  const blocks = await rollupFilteredProjectStats(sql, scope);
  if (!blocks) return null;
  const per = (n: number, r: StatsRow) => (r.sessions > 0 ? n / r.sessions : 0);
  const value = (m: Metric, r: StatsRow): number =>
    ({
      visitors: r.visitors,
      pageviews: r.pageviews,
      sessions: r.sessions,
      bounce_rate: per(r.bounces, r), // correctly rounded, as the raw path's average of 0s and 1s
      session_duration: per(r.duration_ms, r),
      pages_per_session: per(r.pageviews, r),
    })[m.name]!;
  const rows = [...blocks].filter(([, r]) => r.visitors > 0);
  if (rows.length === 0)
    return {
      grouped: sql`select null::text as key, 0 as visitors, 0 as all_visitors, null::float8[] as values where false`,
    };
  const listed = rows
    .map(([id, r]) => sql`(${id}::text, ${r.visitors}::int, ${metrics.map((m) => value(m, r))}::float8[])`)
    .reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    select x.key, x.visitors, (sum(x.visitors) over ())::int as all_visitors, x.values
    from (values ${listed}) as x(key, visitors, values)`,
  };
}

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

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupProjectGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (metrics.some((m) => !SESSION_METRICS.has(m.name)) || scope.filters.length > 0) return null;
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

// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// from the dimension day rollups (sql/queries/build_rollup_dim_days.sql), in the shape of metrics.ts
// groupedSql: a 30-day read groups about one row per visitor and day instead of every event.
// Null when they cannot answer: another dimension or filter, a metric they do not carry, or a range
// that is not whole closed days.
import type { Sql } from 'postgres';
import { dimensionSql, type Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { ensureRollups } from './build.ts';
import { closedDays } from './eligible.ts';

/** The dimensions rollup_dim_sets keeps, named as the events columns they copy. */
export const ROLLUP_DIMENSIONS = new Set([
  'country', 'region', 'city', 'browser', 'browser_version', 'os', 'os_version', 'device', 'screen', 'language', 'release',
]);
const METRICS = new Set(['visitors', 'pageviews', 'events']);

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupDimensionGroups(sql: Sql, scope: Scope, dimension: string, metrics: Metric[]): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || !ROLLUP_DIMENSIONS.has(dimension)) return null;
  if (metrics.some((m) => !METRICS.has(m.name)) || scope.filters.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const days = closedDays(scope);
  if (!days) return null;
  const project = scope.projectIds[0]!;
  await ensureRollups(sql, [project], days.from, days.to);
  const [t, v] = [Math.floor(days.sel / 3), days.sel % 3];
  const value = (m: Metric): Fragment => (m.name === 'visitors' ? sql`count(*)::float8` : sql`sum(${sql(m.name)})::float8`);
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  // The sets of values are aliased `e`, so the dimension and filter SQL of the events table applies to them.
  return { grouped: sql`
    with s as (
      select e.id, ${dimensionSql(sql, dimension)}::text as k from rollup_dim_sets e
      where e.project_id = ${project} and ${filtersSql(sql, scope.filters)}
    ), vk as materialized (
      select s.k, d.visitor_hash, sum(d.pageviews) as pageviews, sum(d.events) as events
      from rollup_day_dims d join s on s.id = d.set_id
      where d.project_id = ${project} and d.day >= ${days.from}::date and d.day < ${days.to}::date
        and (d.tm >> ${t}) & 1 = 1 and (d.em >> ${v}) & 1 = 1
      group by 1, 2
    )
    select k as key, count(*)::int as visitors, (select count(distinct visitor_hash) from vk)::int as all_visitors,
      array[${values}]::float8[] as values
    from vk where k is not null group by k` };
}

// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// from the dimension day rollups (sql/queries/build_rollup_dim_days.sql), in the shape of metrics.ts
// groupedSql: a 30-day read sums a few thousand rows (one per day, class and set of values) and counts
// the distinct visitors of their hash arrays, instead of grouping every event.
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
  const value = (m: Metric): Fragment => (m.name === 'visitors' ? sql`v.visitors::float8` : sql`c.${sql(m.name)}::float8`);
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  // The sets of values are aliased `e`, so the dimension and filter SQL of the events table applies to them.
  return { grouped: sql`
    with s as (
      select e.id, ${dimensionSql(sql, dimension)}::text as k from rollup_dim_sets e
      where e.project_id = ${project} and ${filtersSql(sql, scope.filters)}
    ), d as materialized (
      select s.k, d.pageviews, d.events, d.visitors
      from rollup_day_dims d join s on s.id = d.set_id
      where d.project_id = ${project} and d.day >= ${days.from}::date and d.day < ${days.to}::date
        and d.tm = any(${classesWith(days.sel / 3 | 0, 16)}::smallint[]) and d.em = any(${classesWith(days.sel % 3, 8)}::smallint[])
    ), kv as materialized (
      select distinct d.k, h from d, unnest(d.visitors) as h
    ), v as (
      select k, count(*)::int as visitors from kv where k is not null group by k
    ), c as (
      select k, sum(pageviews) as pageviews, sum(events) as events from d where k is not null group by k
    )
    select v.k as key, v.visitors, (select count(*) from (select distinct h from kv) a)::int as all_visitors,
      array[${values}]::float8[] as values
    from v join c on c.k = v.k` };
}

/** The class values below `size` that have bit `bit` set: a selection as a list the planner can estimate
 *  (a bit test on a column is an opaque filter to it, and it then plans for a handful of rows). */
const classesWith = (bit: number, size: number) => Array.from({ length: size }, (_, i) => i).filter((i) => (i >> bit) & 1);

// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// from the dimension day rollups (sql/queries/build_rollup_dim_days.sql), in the shape of metrics.ts
// groupedSql: a 30-day read sums a few thousand rows (one per day, class and set of values), and counts
// the distinct visitors of their hash arrays once per range (rollup_range_values), instead of grouping
// every event.
// Null when they cannot answer: another dimension or filter, a metric they do not carry, or a range
// that is not whole closed days.
import type { Sql } from 'postgres';
import { dimensionSql, type Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import type { Filter } from '../params.ts';
import { ensureRollups } from './build.ts';
import { closedDays } from './eligible.ts';
import { rangeValue, type Days } from './range-values.ts';

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
  // The distinct visitors per value are the costly part (unnesting and de-duplicating every hash of the
  // range): kept per range, selection and question, as the page breakdown keeps its visitors per page.
  const question = `dim_visitors:${dimension}:${JSON.stringify(scope.filters.map((f) => [f.dimension, f.exclude, f.value]))}`;
  const visitors = await rangeValue(sql, project, days, question, () => valueVisitors(sql, project, days, rowsSql(sql, project, days, dimension, scope.filters)));
  const value = (m: Metric): Fragment => (m.name === 'visitors' ? sql`v.visitors::float8` : sql`c.${sql(m.name)}::float8`);
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  return { grouped: sql`
    with c as (
      select d.k, sum(d.pageviews) as pageviews, sum(d.events) as events
      from (${rowsSql(sql, project, days, dimension, scope.filters)}) d where d.k is not null group by 1
    ), v as (
      select k, visitors from unnest(${visitors.values}::text[], ${visitors.visitors}::int[]) as v(k, visitors)
    )
    select v.k as key, v.visitors, ${visitors.all}::int as all_visitors, array[${values}]::float8[] as values
    from v join c on c.k = v.k` };
}

/** Parallel arrays, not an object keyed by value: a value is any text a client sent (`__proto__` too). */
type ValueVisitors = { all: number; values: string[]; visitors: number[] };

/** The rows of the range and selection whose sets pass the filters: the value `k`, counts, visitor hashes.
 *  The sets are aliased `e`, so the dimension and filter SQL of the events table applies to them. */
function rowsSql(sql: Sql, project: string, days: Days, dimension: string, filters: Filter[]): Fragment {
  return sql`
    select s.k, d.pageviews, d.events, d.visitors
    from rollup_day_dims d join (
      select e.id, ${dimensionSql(sql, dimension)}::text as k from rollup_dim_sets e
      where e.project_id = ${project} and ${filtersSql(sql, filters)}
    ) s on s.id = d.set_id
    where d.project_id = ${project} and d.day >= ${days.from}::date and d.day < ${days.to}::date
      and d.tm = any(${classesWith(Math.floor(days.sel / 3), 16)}::smallint[]) and d.em = any(${classesWith(days.sel % 3, 8)}::smallint[])`;
}

/** Distinct visitors per non-null value, and of all the rows (null values too: the share's denominator). */
async function valueVisitors(sql: Sql, project: string, days: Days, rows: Fragment): Promise<ValueVisitors> {
  const found = await sql<{ k: string | null; visitors: number }[]>`
    with kv as materialized (select distinct d.k, h from (${rows}) d, unnest(d.visitors) as h)
    select k, count(*)::int as visitors from kv where k is not null group by k
    union all
    select null, count(*)::int from (select distinct h from kv) a`;
  const out: ValueVisitors = { all: 0, values: [], visitors: [] };
  for (const r of found) {
    if (r.k === null) out.all = r.visitors;
    else out.values.push(r.k), out.visitors.push(r.visitors);
  }
  return out;
}

/** The class values below `size` that have bit `bit` set: a selection as a list the planner can estimate
 *  (a bit test on a column is an opaque filter to it, and it then plans for a handful of rows). */
const classesWith = (bit: number, size: number) => Array.from({ length: size }, (_, i) => i).filter((i) => (i >> bit) & 1);

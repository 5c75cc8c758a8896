// Breakdown rows (metrics.ts groupedSql's shape) from rollup rows that carry a value `k`, pageviews,
// events and an array of visitor hashes: the dimension rollups (dims.ts) and the prop rollups
// (props.ts). Counts are summed per read; the distinct visitors per value, the costly part (unnesting
// and de-duplicating every hash of the range), are counted once per range, selection and question and
// kept in rollup_range_values, as the page breakdown keeps its visitors per page.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Metric } from '../metrics.ts';
import { rangeValue, type Days } from './range-values.ts';

/** The metrics these rows carry. */
export const VALUE_ROW_METRICS = new Set(['visitors', 'pageviews', 'events']);

/**
 * `rows`: (k, pageviews, events, visitors) of the range and selection; `base`: (visitors) rows whose
 * distinct hashes are the share's denominator (every visitor in scope, whether or not the value is null).
 * Wrapped in an object: a fragment is a thenable, which an async function would run instead of return.
 */
export async function valueRowGroups(
  sql: Sql,
  project: string,
  days: Days,
  question: string,
  rows: Fragment,
  base: Fragment,
  metrics: Metric[],
  cacheable = true,
): Promise<{ grouped: Fragment }> {
  // Rows with a raw part (segments.ts) change with every event: counted per read.
  const visitors = cacheable
    ? await rangeValue(sql, project, days, question, () => valueVisitors(sql, rows, base))
    : await valueVisitors(sql, rows, base);
  const value = (m: Metric): Fragment =>
    m.name === 'visitors' ? sql`v.visitors::float8` : sql`c.${sql(m.name)}::float8`;
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with c as (
      select d.k, sum(d.pageviews) as pageviews, sum(d.events) as events from (${rows}) d where d.k is not null group by 1
    ), v as (
      select k, visitors from unnest(${visitors.values}::text[], ${visitors.visitors}::int[]) as v(k, visitors)
    )
    select v.k as key, v.visitors, ${visitors.all}::int as all_visitors, array[${values}]::float8[] as values
    from v join c on c.k = v.k`,
  };
}

/** Rows (k, pageviews, events, visitors) grouped from events as the value builds group them: the
 *  non-engagement events `from` holds (aliased `e`) under `where`, by the value `k`. */
export function rawValueRowsSql(sql: Sql, k: Fragment, from: Fragment, where: Fragment): Fragment {
  return sql`
    select ${k} as k, count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
    from ${from} where (${where}) and e.name <> 'engagement' group by 1`;
}

/** The class values below `size` that have bit `bit` set: a selection as a list the planner can estimate
 *  (a bit test on a column is an opaque filter to it, and it then plans for a handful of rows). */
export function selectionSql(sql: Sql, days: Days, alias: string): Fragment {
  const classes = (bit: number, size: number) =>
    Array.from({ length: size }, (_, i) => i).filter((i) => (i >> bit) & 1);
  return sql`${sql(alias)}.tm = any(${classes(Math.floor(days.sel / 3), 16)}::smallint[])
    and ${sql(alias)}.em = any(${classes(days.sel % 3, 8)}::smallint[])`;
}

/** Parallel arrays, not an object keyed by value: a value is any text a client sent (`__proto__` too). */
type ValueVisitors = { all: number; values: string[]; visitors: number[] };

async function valueVisitors(sql: Sql, rows: Fragment, base: Fragment): Promise<ValueVisitors> {
  const found = await sql<{ k: string | null; visitors: number }[]>`
    select k, count(*)::int as visitors
    from (select distinct d.k, h from (${rows}) d, unnest(d.visitors) as h where d.k is not null) kv group by k
    union all
    select null, count(*)::int from (select distinct h from (${base}) b, unnest(b.visitors) as h) a`;
  const out: ValueVisitors = { all: 0, values: [], visitors: [] };
  for (const r of found) {
    if (r.k === null) out.all = r.visitors;
    else (out.values.push(r.k), out.visitors.push(r.visitors));
  }
  return out;
}

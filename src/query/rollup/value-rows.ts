// Breakdown rows (metrics.ts groupedSql's shape) from rollup rows that carry a value `k`, pageviews,
// events and an array of visitor hashes: the dimension rollups (dims.ts) and the prop rollups
// (props.ts). Counts are summed per read; the distinct visitors per value, the costly part (unnesting
// and de-duplicating every hash of the range), are counted once per range, selection and question over
// the rolled days and kept in rollup_range_values, as the page breakdown keeps its visitors per page.
// What a read adds to the rolled days (a raw part, late events: segments.ts) adds, per value, its
// (value, visitor) pairs that no rolled row holds, so a trickle of late events or today read from events
// does not send the whole range's hashes back through a distinct.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Metric } from '../metrics.ts';
import { rangeValue } from './range-values.ts';
import { leftOut, type Plan } from './segments.ts';

/** The metrics these rows carry. */
export const VALUE_ROW_METRICS = new Set(['visitors', 'pageviews', 'events']);

/**
 * Rows of one side of a read: `rows` (k, day, pageviews, events, visitors) under the range and selection,
 * and `base` (day, visitors), whose distinct hashes are the share's denominator (every visitor in scope,
 * whether or not the value is null). Every hash of `rows` is one of `base`'s. Rows grouped from events
 * have no day (null).
 */
export type ValueRows = { rows: Fragment; base: Fragment };

/**
 * The grouped rows of the rolled days' rows plus, when the plan adds anything to them (hasRawPart), the
 * added rows. Wrapped in an object: a fragment is a thenable, which an async function would run instead
 * of return.
 */
export async function valueRowGroups(
  sql: Sql,
  project: string,
  plan: Plan,
  question: string,
  rolled: ValueRows,
  added: ValueRows | null,
  metrics: Metric[],
): Promise<{ grouped: Fragment }> {
  // Named by the days left out, as the other kept values of a plan with a raw part (visitors.ts).
  const left = plan.raw.length === 0 ? '' : `-without:${leftOut(plan).join(',')}`;
  const kept = await rangeValue(sql, project, plan, `${question}${left}`, () => valueVisitors(sql, rolled));
  const visitors = added ? await withAdded(sql, project, plan, kept, rolled, added) : kept;
  const rows = added ? sql`${rolled.rows} union all ${added.rows}` : rolled.rows;
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
    select ${k} as k, null::date as day, count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
    from ${from} where (${where}) and e.name <> 'engagement' group by 1`;
}

/** The class values below `size` that have bit `bit` set: a selection as a list the planner can estimate
 *  (a bit test on a column is an opaque filter to it, and it then plans for a handful of rows). */
export function selectionSql(sql: Sql, days: { sel: number }, alias: string): Fragment {
  const classes = (bit: number, size: number) =>
    Array.from({ length: size }, (_, i) => i).filter((i) => (i >> bit) & 1);
  return sql`${sql(alias)}.tm = any(${classes(Math.floor(days.sel / 3), 16)}::smallint[])
    and ${sql(alias)}.em = any(${classes(days.sel % 3, 8)}::smallint[])`;
}

/** Parallel arrays, not an object keyed by value: a value is any text a client sent (`__proto__` too). */
type ValueVisitors = { all: number; values: string[]; visitors: number[] };

async function valueVisitors(sql: Sql, side: ValueRows): Promise<ValueVisitors> {
  const found = await sql<{ k: string | null; visitors: number }[]>`
    select k, count(*)::int as visitors
    from (select distinct d.k, h from (${side.rows}) d, unnest(d.visitors) as h where d.k is not null) kv group by k
    union all
    select null, count(*)::int from (select distinct h from (${side.base}) b, unnest(b.visitors) as h) a`;
  return fromRows(found);
}

/** `fewVisitorDays`: up to this many (visitor, day) pairs of known visitors, each pair's rows are searched
 *  for its hash (`= any`); past it, the rolled rows of the added values are unnested once (today read
 *  from events under heavy ingest names thousands of returning visitors). A setting so that tests can take
 *  either way. */
export const VALUE_ROW_TUNING = { fewVisitorDays: 2_000 };

/**
 * The rolled days' counts plus, per value, the added (value, visitor) pairs that no rolled row holds.
 * A visitor the rolled days never saw (rollup_day_visitors, probed through its hash index) adds to every
 * value it has. For the others (`known`, with the days they were seen), a trickle of late events names a
 * few: each is looked for in the rows of its days and values only, where unnesting every row of the
 * range cost 0.2–0.3 s at 10M for 21 such visitors.
 */
async function withAdded(
  sql: Sql,
  project: string,
  plan: Plan,
  kept: ValueVisitors,
  rolled: ValueRows,
  added: ValueRows,
): Promise<ValueVisitors> {
  const more = await sql<{ k: string | null; visitors: number }[]>`
    with p as materialized (
      select distinct d.k, h from (${added.rows}) d, unnest(d.visitors) as h where d.k is not null
    ), pb as materialized (
      select distinct h from (${added.base}) b, unnest(b.visitors) as h
    ), known as materialized (
      select r.visitor_hash as h, r.day from rollup_day_visitors r
      where r.project_id = ${project} and r.visitor_hash in (select h from pb) and r.day = any(${plan.rolled}::date[])
        and r.sel_mask & ${1 << plan.sel} <> 0
    ), few as materialized (
      select count(*) <= ${VALUE_ROW_TUNING.fewVisitorDays} as few from known
    ), had as materialized (
      select distinct p.k, p.h from p join known x on x.h = p.h join (${rolled.rows}) d on d.day = x.day and d.k = p.k
      where (select few from few) and p.h = any(d.visitors)
      union
      select distinct d.k, h from (${rolled.rows}) d, unnest(d.visitors) as h
      where not (select few from few) and d.k in (select k from p) and h in (select h from known)
    ), had_base as materialized (
      select distinct x.h from known x join (${rolled.base}) d on d.day = x.day
      where (select few from few) and x.h = any(d.visitors)
      union
      select distinct h from (${rolled.base}) d, unnest(d.visitors) as h
      where not (select few from few) and h in (select h from known)
    )
    select p.k, count(*)::int as visitors from p where not exists (select 1 from had x where x.k = p.k and x.h = p.h) group by 1
    union all
    select null, count(*)::int from pb where not exists (select 1 from had_base x where x.h = pb.h)`;
  const extra = fromRows(more);
  const out = new Map(kept.values.map((k, i) => [k, kept.visitors[i]!]));
  extra.values.forEach((k, i) => out.set(k, (out.get(k) ?? 0) + extra.visitors[i]!));
  return { all: kept.all + extra.all, values: [...out.keys()], visitors: [...out.values()] };
}

function fromRows(found: { k: string | null; visitors: number }[]): ValueVisitors {
  const out: ValueVisitors = { all: 0, values: [], visitors: [] };
  for (const r of found) {
    if (r.k === null) out.all = r.visitors;
    else (out.values.push(r.k), out.visitors.push(r.visitors));
  }
  return out;
}

// The pageviews and events per value that value-rows.ts keeps with a range's distinct visitors: summed
// with them in one pass over the rolled days' rows (valueVisitors), or, over settled and recent days, the
// settled days' sums plus the recent days' rows summed here.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';

/** The pageviews and events per value over the rolled days' rows, as parallel arrays too. The visitors'
 *  values change as added pairs correct them (withAdded, lateFixed); the sums are the rows' own. */
export type ValueSums = { values: string[]; pageviews: number[]; events: number[] };

/** The sums of `rows` (k, day, pageviews, events, …) per value. */
export async function rowSums(sql: Sql, rows: Fragment): Promise<ValueSums> {
  const found = await sql<{ k: string; pageviews: number; events: number }[]>`
    select d.k, sum(d.pageviews)::float8 as pageviews, sum(d.events)::float8 as events
    from (${rows}) d where d.k is not null group by d.k`;
  return sumsFrom(found);
}

/** `a` and `b` summed per value. */
export function addSums(a: ValueSums, b: ValueSums): ValueSums {
  const out = new Map(a.values.map((k, i) => [k, [a.pageviews[i]!, a.events[i]!] as const]));
  b.values.forEach((k, i) => {
    const [pageviews, events] = out.get(k) ?? [0, 0];
    out.set(k, [pageviews + b.pageviews[i]!, events + b.events[i]!]);
  });
  return sumsFrom([...out].map(([k, [pageviews, events]]) => ({ k, pageviews, events })));
}

function sumsFrom(found: { k: string; pageviews: number; events: number }[]): ValueSums {
  return {
    values: found.map((r) => r.k),
    pageviews: found.map((r) => r.pageviews),
    events: found.map((r) => r.events),
  };
}

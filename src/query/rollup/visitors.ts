// Distinct visitors per project over a range of rolled-up days (sql/queries/count_range_visitors.sql):
// counted from the day rows once, then reused until a day of the range is rebuilt (range-values.ts).
// With a raw part (segments.ts), the rolled days' count (kept per set of days left out) plus the raw
// part's visitors that no rolled day has, found by their hash (index rollup_day_visitors_hash, 0063).
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import type { Scope } from '../filters.ts';
import { rangeValue } from './range-values.ts';
import { leftOut, rawHashesSql, type Plan } from './segments.ts';

export async function rangeVisitors(
  sql: Sql,
  projectIds: string[],
  days: { from: string; to: string; sel: number },
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of projectIds) {
    const visitors = await rangeValue(
      sql,
      id,
      days,
      'visitors',
      async () =>
        (await query<{ visitors: number }>(sql, 'count_range_visitors', [id, days.from, days.to, days.sel]))[0]!
          .visitors,
    );
    out.set(id, visitors);
  }
  return out;
}

/** Distinct visitors per project over the whole range of the plan, rolled days and raw part together. */
export async function planVisitors(sql: Sql, scope: Scope, plan: Plan): Promise<Map<string, number>> {
  if (plan.raw.length === 0) return rangeVisitors(sql, scope.projectIds, plan);
  const out = new Map<string, number>();
  const left = leftOut(plan);
  for (const id of scope.projectIds) {
    // The days left out name the cached value: the rolled days' count, whatever their span.
    const rolled = await rangeValue(sql, id, plan, `visitors-without:${left.join(',')}`, async () => {
      const [row]: [{ n: number }?] = await sql`
        select count(distinct visitor_hash)::int as n from rollup_day_visitors
        where project_id = ${id} and day = any(${plan.rolled}::date[]) and sel_mask & ${1 << plan.sel} <> 0`;
      return row!.n;
    });
    const [more]: [{ n: number }?] = await sql`
      select count(*)::int as n from (
        select distinct h from (${rawHashesSql(sql, { ...scope, projectIds: [id] }, plan)}) w
      ) w
      where not exists (
        select 1 from rollup_day_visitors r
        where r.project_id = ${id} and r.visitor_hash = w.h and r.day = any(${plan.rolled}::date[])
          and r.sel_mask & ${1 << plan.sel} <> 0)`;
    out.set(id, rolled + more!.n);
  }
  return out;
}

export const sumOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

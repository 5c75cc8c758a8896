// Distinct visitors per project over a range of rolled-up days (sql/queries/count_range_visitors.sql):
// counted from the day rows once, then reused until a day of the range is rebuilt (range-values.ts).
// With a raw part (segments.ts), the rolled days' count (kept per set of days left out) plus the raw
// part's visitors that no rolled day has, found by their hash (index rollup_day_visitors_hash, 0063).
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import type { Scope } from '../filters.ts';
import { rangeValue } from './range-values.ts';
import type { Fragment } from '../dimensions.ts';
import { hasRawPart, leftOut, type Plan } from './segments.ts';

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

/**
 * Distinct visitors of the plan's rolled days, per project (kept, named by the days left out), and the
 * fragment that counts the raw part's visitors no rolled day has, per project (project_id, n): it reads
 * raw_hashes of segments.ts rawCtes.
 */
export async function planVisitors(
  sql: Sql,
  scope: Scope,
  plan: Plan,
): Promise<{ rolled: Map<string, number>; more: Fragment }> {
  if (!hasRawPart(plan))
    return {
      rolled: await rangeVisitors(sql, scope.projectIds, plan),
      more: sql`select null::text as project_id, 0 as n where false`,
    };
  const left = leftOut(plan);
  // Late events alone (every day rolled): the rolled days' count is the whole range's, kept as such.
  const rolled = left.length === 0 ? await rangeVisitors(sql, scope.projectIds, plan) : new Map<string, number>();
  for (const id of left.length === 0 ? [] : scope.projectIds) {
    const n = await rangeValue(sql, id, plan, `visitors-without:${left.join(',')}`, async () => {
      const [row]: [{ n: number }?] = await sql`
        select count(distinct visitor_hash)::int as n from rollup_day_visitors
        where project_id = ${id} and day = any(${plan.rolled}::date[]) and sel_mask & ${1 << plan.sel} <> 0`;
      return row!.n;
    });
    rolled.set(id, n);
  }
  const more = sql`
    select w.project_id, count(*) as n from (select distinct project_id, h from raw_hashes) w
    where not exists (
      select 1 from rollup_day_visitors r
      where r.project_id = w.project_id and r.visitor_hash = w.h and r.day = any(${plan.rolled}::date[])
        and r.sel_mask & ${1 << plan.sel} <> 0)
    group by 1`;
  return { rolled, more };
}

export const sumOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

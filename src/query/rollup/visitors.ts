// Distinct visitors per project over a range of rolled-up days (sql/queries/count_range_visitors.sql):
// counted from the day rows once, then reused until a day of the range is rebuilt (range-values.ts; a
// rebuild of yesterday or today adds their new visitors to the settled days' kept count). With a raw part
// (segments.ts), the rolled days' count (kept per set of days left out) plus the raw part's visitors that
// no rolled day has, found by their hash (index rollup_day_visitors_hash, 0063).
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import type { Scope } from '../filters.ts';
import { keptOverRolled } from './range-values.ts';
import type { Fragment } from '../dimensions.ts';
import { hasRawPart, type Plan } from './segments.ts';

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
  const rolled = new Map<string, number>();
  for (const id of scope.projectIds) {
    const counted = async (days: string[], since: string) => {
      const [row] = await query<{ visitors: number; settled: number }>(sql, 'count_range_visitors', [
        id,
        days,
        plan.sel,
        since,
      ]);
      return { all: row!.visitors, settled: row!.settled };
    };
    const visitors = await keptOverRolled(sql, id, plan, 'visitors', {
      both: counted,
      add: async (settled, split) => {
        const [row] = await query<{ visitors: number }>(sql, 'count_new_visitors', [
          id,
          split.recent,
          split.settled,
          plan.sel,
        ]);
        return settled + row!.visitors;
      },
    });
    rolled.set(id, visitors);
  }
  if (!hasRawPart(plan)) return { rolled, more: sql`select null::text as project_id, 0 as n where false` };
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

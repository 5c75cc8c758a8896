// Retention cells from the day rollups: a visitor's periods are the weeks or months of their active
// days. Computed once per range from rollup_day_visitors and kept (range-values.ts).
import type { Sql } from 'postgres';
import type { Scope } from '../filters.ts';
import { rollupsReady } from './build.ts';
import { rollupDays } from './eligible.ts';
import { rangeValue } from './range-values.ts';

export type CellRow = { cohort: Date; period: Date; visitors: number };
type Stored = { cohort: string; period: string; visitors: number };

/** Null when the rollups cannot answer (one project, whole closed days, no filters). */
export async function rollupRetentionCells(
  sql: Sql,
  scope: Scope,
  interval: 'week' | 'month',
): Promise<CellRow[] | null> {
  const days = rollupDays(scope);
  if (!days || scope.projectIds.length !== 1 || !(await rollupsReady(sql, scope.projectIds, days.from, days.to)))
    return null;
  const project = scope.projectIds[0]!;
  const cells = await rangeValue(sql, project, days, `retention:${interval}`, () =>
    count(sql, project, days, interval),
  );
  return cells.map((c) => ({ cohort: new Date(c.cohort), period: new Date(c.period), visitors: c.visitors }));
}

async function count(
  sql: Sql,
  project: string,
  days: { from: string; to: string; sel: number },
  interval: string,
): Promise<Stored[]> {
  const rows = await sql<{ cohort: Date; period: Date; visitors: number }[]>`
    with act as (
      select distinct visitor_hash, date_trunc(${interval}, day::timestamp) as period from rollup_day_visitors
      where project_id = ${project} and day >= ${days.from}::date and day < ${days.to}::date and sel_mask & ${1 << days.sel} <> 0
    ), firsts as (
      select visitor_hash, min(period) as cohort from act group by 1
    )
    select f.cohort at time zone 'UTC' as cohort, a.period at time zone 'UTC' as period, count(*)::int as visitors
    from firsts f join act a on a.visitor_hash = f.visitor_hash
    group by 1, 2 order by 1, 2`;
  return rows.map((r) => ({ cohort: r.cohort.toISOString(), period: r.period.toISOString(), visitors: r.visitors }));
}

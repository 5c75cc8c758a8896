// The statistic block's row from the day rollups: summed day totals, distinct visitors over the days'
// visitor rows, and the split-session correction. Null when the rollups cannot answer (see eligible.ts).
import type { Sql } from 'postgres';
import type { Scope } from '../filters.ts';
import type { StatsRow } from '../stats.ts';
import { rollupsReady } from './build.ts';
import { rollupDays } from './eligible.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { rangeVisitors, sumOf } from './visitors.ts';

export async function rollupStats(sql: Sql, scope: Scope): Promise<StatsRow | null> {
  const days = rollupDays(scope);
  if (!days || !(await rollupsReady(sql, scope.projectIds, days.from, days.to))) return null;
  const inRange = sql`project_id = any(${scope.projectIds}) and day >= ${days.from}::date and day < ${days.to}::date`;
  // Visitors of different projects are different visitors: the across-projects count is a sum.
  const visitors = sumOf(await rangeVisitors(sql, scope.projectIds, days));
  const [row] = await sql<StatsRow[]>`
    with ${splitCtes(sql, scope, days)},
    fix as (
      select sum(c.sessions) as sessions, sum(c.bounces) as bounces, sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, () => sql`null::timestamp`)}) c
    ),
    t as (
      select coalesce(sum(sessions), 0) as sessions, coalesce(sum(pageviews), 0) as pageviews,
        coalesce(sum(bounces), 0) as bounces, coalesce(sum(duration_ms), 0) as duration_ms
      from rollup_day_totals where ${inRange} and sel = ${days.sel}
    )
    select ${visitors}::int as visitors, (t.sessions + coalesce(f.sessions, 0))::int as sessions, t.pageviews::int as pageviews,
      (t.bounces + coalesce(f.bounces, 0))::int as bounces, (t.duration_ms + coalesce(f.duration_ms, 0))::float8 as duration_ms
    from t left join fix f on true`;
  return row!;
}

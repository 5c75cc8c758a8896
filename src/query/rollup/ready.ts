// Whether the day rollups answer for a range. They are kept by the writers (src/db/rollup-apply.ts), so a
// read only checks, never builds: a day put up for a whole rebuild (rollup_pending_days: events rewritten
// by the visitor-internal PATCH, a retention cut) or an irregular day (see 0007_rollups.sql) sends the
// read to the raw path until the writer is done. Plain reads: no lock a writer could wait for.
import type { Sql } from 'postgres';
import type { RollupDays } from './eligible.ts';

/** True when every day of the range is current and regular for each project, and for a range ending
 *  inside today, no event of today lies at or past its end. */
export async function rollupsReady(sql: Sql, projectIds: string[], days: RollupDays): Promise<boolean> {
  const { from, to, liveTo } = days;
  const [row]: [{ raw: boolean }?] = await sql`
    select exists (select 1 from rollup_days where project_id = any(${projectIds}) and day >= ${from}::date and day < ${to}::date and irregular)
      or exists (select 1 from rollup_pending_days where project_id = any(${projectIds}) and day >= ${from}::date and day < ${to}::date)
      or (${liveTo ?? null}::timestamptz is not null and exists (
        select 1 from events where project_id = any(${projectIds}) and ts >= ${liveTo ?? null}::timestamptz
          and ts < (${to}::date::timestamp at time zone 'UTC'))) as raw`;
  return !row!.raw;
}

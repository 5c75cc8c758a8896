// Speed scores of the across-projects rows, kept per (project, range, selection) in rollup_range_values.
// Percentiles do not add up over days, but every speed sample is written with its `speed` event, so a
// write into a day marks it and the day is rebuilt: the kept score is reused only while no day of the
// range has been rebuilt, and while no day of it has a mark that can change a sample (a whole-day mark, or
// a late `speed` event; other late events and stretched sessions leave the samples as they were). Null
// when the range is not one the rollups answer.
import type { Sql } from 'postgres';
import type { Scope } from '../filters.ts';
import { query } from '../../db/queries.ts';
import { rollupDays } from './eligible.ts';
import { rangeValue } from './range-values.ts';

type Scores = (sql: Sql, scope: Scope, projectIds: string[]) => Promise<Map<string, number | null>>;

export async function rollupSpeedScores(
  sql: Sql,
  scope: Scope,
  projectIds: string[],
  raw: Scores,
): Promise<Map<string, number | null> | null> {
  const days = rollupDays(scope);
  if (!days || projectIds.length === 0 || !(await samplesAsBuilt(sql, projectIds, days.from, days.to))) return null;
  const out = new Map<string, number | null>();
  for (const id of projectIds) {
    const score = await rangeValue(sql, id, days, 'speed_score', async () => ({
      score: (await raw(sql, scope, [id])).get(id) ?? null,
    }));
    out.set(id, score.score);
  }
  return out;
}

/** Whether every day of [from, to) is built and no mark on it can have changed a speed sample. */
async function samplesAsBuilt(sql: Sql, projectIds: string[], from: string, to: string): Promise<boolean> {
  const pending = await query<{ patchable: boolean }>(sql, 'list_rollup_days_pending', [projectIds, from, to]);
  if (pending.some((r) => !r.patchable)) return false;
  if (pending.length === 0) return true;
  const [row]: [{ changed: boolean }?] = await sql`
    select exists (
      select 1 from rollup_stale_days m join events e on e.project_id = m.project_id and e.ts = m.ts and e.id = m.event_id
      where m.project_id = any(${projectIds}) and m.day >= ${from}::date and m.day < ${to}::date
        and m.event_id is not null and e.name = 'speed') as changed`;
  return !row!.changed;
}

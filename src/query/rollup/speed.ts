// Speed scores of the across-projects rows, kept per (project, range, selection) in rollup_range_values.
// Percentiles do not add up over days, but every speed sample is written with its `speed` event, so a
// write into a day marks it and the day is rebuilt: the kept score is reused only while no day of the
// range has been rebuilt, and while the marks that can change a sample (late `speed` events; other late
// events and stretched sessions leave the samples as they were) are those it was counted under. A score
// counted beside late Web Vitals is so kept until the next one, or the fold that takes them: the projects
// list after traffic with late vitals read every sample of the range on every load (186 ms warm, 0.7 s
// cold at 10M events). Null when the range is not one the rollups answer, or a day of it is not one a read
// patches (not built, marked whole, more marks than loupe_patch_limit).
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
  if (!days || projectIds.length === 0) return null;
  const pending = await query<{ patchable: boolean }>(sql, 'list_rollup_days_pending', [
    projectIds,
    days.from,
    days.to,
  ]);
  if (pending.some((r) => !r.patchable)) return null;
  const marks = pending.length === 0 ? new Map<string, string>() : await vitalMarks(sql, projectIds, days);
  const out = new Map<string, number | null>();
  for (const id of projectIds) {
    const under = marks.get(id) ?? NONE;
    const score = await rangeValue(
      sql,
      id,
      days,
      'speed_score',
      async () => ({ score: (await raw(sql, scope, [id])).get(id) ?? null, marks: under }),
      // A score kept before marks were told apart was counted without any.
      (kept: { marks?: string }) => (kept.marks ?? NONE) === under,
    );
    out.set(id, score.score);
  }
  return out;
}

const NONE = '0';

/** Per project with late `speed` events in [from, to): their marks' count and the newest one's time. Read
 *  before a score is counted, so a mark written meanwhile makes the kept score look older, never newer; a
 *  fold or rebuild that takes marks gives the day a new build sequence, which the kept score is named by. */
async function vitalMarks(
  sql: Sql,
  projectIds: string[],
  days: { from: string; to: string },
): Promise<Map<string, string>> {
  const rows = await sql<{ project_id: string; marks: string }[]>`
    select m.project_id, count(*) || '@' || max(m.marked_at)::text as marks
    from rollup_stale_days m join events e on e.project_id = m.project_id and e.ts = m.ts and e.id = m.event_id
    where m.project_id = any(${projectIds}) and m.day >= ${days.from}::date and m.day < ${days.to}::date
      and m.event_id is not null and e.name = 'speed'
    group by 1`;
  return new Map(rows.map((r) => [r.project_id, r.marks]));
}

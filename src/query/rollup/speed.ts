// Speed scores of the across-projects rows, kept per (project, range, selection) in rollup_range_values.
// Percentiles do not add up over days, but every speed sample is written with its `speed` event, so a
// write into a day marks it stale and the next read rebuilds it: the kept score is reused only while
// no day of the range has been rebuilt. Null when the range is not one the rollups answer.
import type { Sql } from 'postgres';
import type { Scope } from '../filters.ts';
import { rollupsReady } from './build.ts';
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
  if (!days || projectIds.length === 0 || !(await rollupsReady(sql, projectIds, days.from, days.to))) return null;
  const out = new Map<string, number | null>();
  for (const id of projectIds) {
    const score = await rangeValue(sql, id, days, 'speed_score', async () => ({
      score: (await raw(sql, scope, [id])).get(id) ?? null,
    }));
    out.set(id, score.score);
  }
  return out;
}

// The `speed` job: folds raw Web Vitals samples older than the raw window (30 days) into per-day
// histograms (0023_speed_days.sql), one project and UTC day a statement, and deletes them.
import type { Sql } from 'postgres';
import { query } from '../db/queries.ts';
import { rawWindowStart } from '../query/speed/buckets.ts';

const DAY = 86_400_000;

export async function foldSpeedSamples(sql: Sql, now: Date): Promise<Record<string, unknown>> {
  const before = rawWindowStart(now);
  const projects = await query<{ id: string }>(sql, 'list_projects');
  let days = 0;
  let samples = 0;
  let rows = 0;
  for (const { id } of projects) {
    let at = await firstSample(sql, id, new Date(0), before);
    while (at) {
      const dayEnd = new Date(Math.min((Math.floor(at.getTime() / DAY) + 1) * DAY, before.getTime()));
      const [done] = await query<{ samples: number; rows: number }>(sql, 'fold_speed_day', [id, at, dayEnd]);
      days += 1;
      samples += done!.samples;
      rows += done!.rows;
      at = await firstSample(sql, id, dayEnd, before);
    }
  }
  return { before: before.toISOString(), days, samples, rows };
}

async function firstSample(sql: Sql, projectId: string, from: Date, to: Date): Promise<Date | null> {
  if (from >= to) return null;
  const [row] = await query<{ ts: Date | null }>(sql, 'first_speed_sample', [projectId, from, to]);
  return row?.ts ?? null;
}

// The `speed` job's second step: builds the day counts by route, country and element (speed_dims,
// 0056/0058) of every finished UTC day not built yet, one project and day a transaction that holds the
// project's row FOR UPDATE, so flushes of the project (FOR KEY SHARE) wait for it: each sample is counted
// either by the build or, arriving later, by the insert trigger.
import type { Sql } from 'postgres';
import { query } from '../db/queries.ts';

const DAY = 86_400_000;

export async function buildSpeedDims(sql: Sql, now: Date): Promise<{ dimDays: number; dimRows: number }> {
  const today = new Date(Math.floor(now.getTime() / DAY) * DAY).toISOString().slice(0, 10);
  const projects = await query<{ id: string }>(sql, 'list_projects');
  let dimDays = 0;
  let dimRows = 0;
  for (const { id } of projects) {
    const days = await query<{ day: Date }>(sql, 'unbuilt_speed_dims_days', [id, today]);
    for (const { day } of days) {
      const rows = await sql.begin(async (tx) => {
        const held = await tx`select id from projects where id = ${id} for update`;
        if (held.length === 0) return 0; // deleted meanwhile
        const [built] = await query<{ rows: number }>(tx, 'build_speed_dims_day', [id, day]);
        return built!.rows;
      });
      dimDays += 1;
      dimRows += rows;
    }
  }
  return { dimDays, dimRows };
}

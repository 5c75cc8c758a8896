// The `speed` job's third step: sums the route counts of speed_dims over aligned blocks of 2, 4, …, 64
// days (speed_route_blocks, 0060) once their days are built, smallest first so each block is summed from
// its two halves. One project and block a transaction holding the project's row FOR UPDATE, as the day
// builds do: a late sample is counted either by the build or by speed_dims' triggers.
import type { Sql } from 'postgres';
import { query } from '../db/queries.ts';
import { BLOCK_SIZES } from '../query/speed/buckets.ts';

const DAY = 86_400_000;

export async function buildSpeedBlocks(sql: Sql, now: Date): Promise<{ blocks: number; blockRows: number }> {
  const today = new Date(Math.floor(now.getTime() / DAY) * DAY).toISOString().slice(0, 10);
  const projects = await query<{ id: string }>(sql, 'list_projects');
  let blocks = 0;
  let blockRows = 0;
  for (const { id } of projects)
    for (const size of BLOCK_SIZES) {
      const starts = await query<{ start: Date }>(sql, 'unbuilt_speed_route_blocks', [id, today, size]);
      for (const { start } of starts) {
        const rows = await sql.begin(async (tx) => {
          const held = await tx`select id from projects where id = ${id} for update`;
          if (held.length === 0) return 0; // deleted meanwhile
          const [built] = await query<{ rows: number }>(tx, 'build_speed_route_block', [id, size, start]);
          return built!.rows;
        });
        blocks += 1;
        blockRows += rows;
      }
    }
  return { blocks, blockRows };
}

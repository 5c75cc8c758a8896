// Distinct visitors per project over a range of rolled-up days (sql/queries/count_range_visitors.sql):
// counted from the day rows once, then reused until a day of the range is rebuilt (range-values.ts).
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import { rangeValue } from './range-values.ts';

export async function rangeVisitors(
  sql: Sql,
  projectIds: string[],
  days: { from: string; to: string; sel: number },
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of projectIds) {
    const visitors = await rangeValue(
      sql,
      id,
      days,
      'visitors',
      async () =>
        (await query<{ visitors: number }>(sql, 'count_range_visitors', [id, days.from, days.to, days.sel]))[0]!
          .visitors,
    );
    out.set(id, visitors);
  }
  return out;
}

export const sumOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

// Stale marks for the day rollups (src/query/rollup): a writer of events in a past day calls this inside
// its transaction. Cheap by design: one statement, no row rewritten when the day is already marked.
import type { Sql, TransactionSql } from 'postgres';
import { query } from './queries.ts';

/** Marks (project, day) stale for each UTC day ('YYYY-MM-DD') the transaction writes events into. */
export async function markRollupDaysStale(tx: Sql | TransactionSql, projectId: string, days: string[]): Promise<void> {
  if (days.length === 0) return;
  await query(tx, 'mark_rollup_days_stale', [projectId, days]);
}

/** The distinct UTC days of ISO timestamps. A flush has thousands, nearly all in the canonical UTC form
 *  (`toISOString()`), whose day is its first ten characters: no Date is made for those. */
export function utcDays(timestamps: Iterable<string>): string[] {
  const days = new Set<string>();
  for (const ts of timestamps)
    days.add(
      ts.length === 24 && ts[10] === 'T' && ts[23] === 'Z' ? ts.slice(0, 10) : new Date(ts).toISOString().slice(0, 10),
    );
  return [...days].sort(); // marks are locked in key order by every writer: no deadlock between them
}

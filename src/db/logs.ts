// Reading the log stream's history from the database (writing happens in the actors' group commit).
import type { Sql } from 'postgres';
import type { LogFilter, LogLine } from '../../actors/log-ring.ts';
import { query } from './queries.ts';

type LogRow = Omit<LogLine, 'ts'> & { ts: Date };

/** Without `after`: the newest `limit` lines; with it, the first `limit` lines after it. Oldest first either way. */
export async function listLogs(sql: Sql, projectId: string, f: LogFilter, after: string | null, limit: number): Promise<LogLine[]> {
  const rows = await query<LogRow>(sql, 'list_logs', [
    projectId, after, f.level ?? null, f.kind ?? null, f.source ?? null, f.visitor ?? null, f.q ?? null, limit,
  ]);
  const lines = rows.map((r) => ({ ...r, ts: r.ts.toISOString() }));
  return after === null ? lines.reverse() : lines;
}

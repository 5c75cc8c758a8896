// The log stream's lines in the database: appended in the actors' group commit, read for history.
import type { Sql } from 'postgres';
import type { LogFilter, LogLine } from '../../actors/log-ring.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import { query } from './queries.ts';
import { logRows } from './flush-text.ts';

/** Appends lines in input order (insert_logs.sql); answers each line's id and time. */
export function insertLogs(
  sql: Sql,
  projectId: string,
  lines: readonly PendingLog[],
): Promise<{ id: string; ts: Date }[]> {
  return query(sql, 'insert_logs', [projectId, logRows(lines)]);
}

type LogRow = Omit<LogLine, 'ts'> & { ts: Date };

/** Without `after`: the newest `limit` lines; with it, the first `limit` lines after it. Oldest first either way. */
export async function listLogs(
  sql: Sql,
  projectId: string,
  f: LogFilter,
  after: string | null,
  limit: number,
): Promise<LogLine[]> {
  const rows = await query<LogRow>(sql, 'list_logs', [
    projectId,
    after,
    f.level ?? null,
    f.kind ?? null,
    f.source ?? null,
    f.visitor ?? null,
    f.q ?? null,
    limit,
  ]);
  const lines = rows.map((r) => ({ ...r, ts: r.ts.toISOString() }));
  return after === null ? lines.reverse() : lines;
}

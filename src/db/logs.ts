// The log stream's lines in the database: appended in the actors' group commit, read for history.
import type { Sql } from 'postgres';
import type { LogFilter, LogLine } from '../../actors/log-ring.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import { query } from './queries.ts';
import { separatedText, textOrJson } from './separated-text.ts';

/** Appends lines in input order (insert_logs.sql) as separated text, or as JSON when a value holds a
 *  separator; answers each line's id and time. */
export function insertLogs(
  sql: Sql,
  projectId: string,
  lines: readonly PendingLog[],
): Promise<{ id: string; ts: Date }[]> {
  return query(sql, 'insert_logs', [projectId, ...textOrJson(separatedLines(lines), () => JSON.stringify(lines))]);
}

/** insert_logs.sql's text form; null when a value holds a separator. */
export const separatedLines = (lines: readonly PendingLog[]): string | null =>
  separatedText(
    lines,
    8,
    (l, field) =>
      `${field(l.ts ?? null)}\x1f${l.level}\x1f${l.kind}\x1f${l.source}\x1f${l.message}\x1f${JSON.stringify(l.data ?? {})}\x1f` +
      `${field(l.visitor)}\x1f${field(l.session)}`,
  );

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

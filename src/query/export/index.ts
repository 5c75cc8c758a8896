// Exports of a read's rows as csv, json or sql, streamed in ~64 KiB chunks so the HTTP layer's
// backpressure keeps memory flat for a million rows. Routes hand over an async iterable of rows.
import { reply, type Reply } from '../../reply.ts';
import type { Column } from './columns.ts';
import { csvChunks } from './csv.ts';
import { jsonChunks } from './json.ts';
import { sqlChunks } from './sql.ts';

export type ExportFormat = 'csv' | 'json' | 'sql';
export type { Column, ColumnType } from './columns.ts';
export const exportFormats: readonly ExportFormat[] = ['csv', 'json', 'sql'];

export type ExportOptions = {
  /** Table name (sql) and file name (Content-Disposition). */
  name: string;
  columns: Column[];
  rows: AsyncIterable<Record<string, unknown>>;
  /** json: the normal answer's other members (range, filters, …); rows go in `data`. */
  envelope?: Record<string, unknown>;
};

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  sql: 'application/sql; charset=utf-8',
};

export function exportReply(format: ExportFormat, opts: ExportOptions): Reply {
  const file = `${opts.name.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'export'}.${format}`;
  return reply({
    stream: exportChunks(format, opts),
    contentType: CONTENT_TYPES[format],
    headers: { 'Content-Disposition': `attachment; filename="${file}"` },
  });
}

/** The export body as text chunks; the writers behind exportReply, for tests and the CLI. */
export function exportChunks(format: ExportFormat, opts: ExportOptions): AsyncGenerator<string> {
  if (format === 'csv') return csvChunks(opts.columns, opts.rows);
  if (format === 'sql') return sqlChunks(opts.name, opts.columns, opts.rows);
  return jsonChunks(opts.rows, opts.envelope);
}

/** The requested export format: `format=csv|json|sql` wins; otherwise `Accept: text/csv` asks for csv.
 *  null means the ordinary paged answer. */
export function formatOf(query: { format?: string }, accept?: string): ExportFormat | null {
  const f = query.format;
  if (f === 'csv' || f === 'json' || f === 'sql') return f;
  if (accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept)) return 'csv';
  return null;
}

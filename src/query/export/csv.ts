// CSV per RFC 4180: a header row of the column keys (nested fields as dotted names), CRLF line ends,
// a field quoted only when it holds a comma, quote or line break; null and missing are empty fields.
import { ChunkBuffer } from './chunks.ts';
import { isoText, plainText, prepareColumns, type Column, type ReadyColumn } from './columns.ts';

export async function* csvChunks(
  columns: Column[],
  rows: AsyncIterable<Record<string, unknown>>,
): AsyncGenerator<string> {
  const ready = prepareColumns(columns);
  const buffer = new ChunkBuffer();
  buffer.push(columns.map((c) => quote(c.key)).join(',') + '\r\n');
  for await (const row of rows) {
    buffer.push(line(ready, row));
    if (buffer.full) yield buffer.take();
  }
  const rest = buffer.take();
  if (rest) yield rest;
}

function line(columns: ReadyColumn[], row: Record<string, unknown>): string {
  let out = '';
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    if (i > 0) out += ',';
    out += field(c, c.read(row));
  }
  return out + '\r\n';
}

function field(c: ReadyColumn, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (c.type === 'timestamp') return quote(isoText(value));
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return quote(plainText(value));
}

const NEEDS_QUOTES = /[",\r\n]/;

function quote(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

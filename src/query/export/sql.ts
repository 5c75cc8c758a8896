// SQL that loads into both PostgreSQL and SQLite: CREATE TABLE with types both understand, then
// multi-row INSERTs in one transaction. Identifiers in double quotes, strings in single quotes (doubled),
// booleans as TRUE/FALSE (SQLite ≥ 3.23 reads them as 1/0), timestamps as ISO text.
import { ChunkBuffer } from './chunks.ts';
import { isoText, plainText, prepareColumns, type Column, type ColumnType, type ReadyColumn } from './columns.ts';

/** Rows per INSERT: long enough to load fast, short enough for any parser's statement limits. */
export const ROWS_PER_INSERT = 500;

// SQLite picks affinity from the type name: BIGINT → INTEGER, DOUBLE PRECISION → REAL, TEXT → TEXT,
// BOOLEAN and TIMESTAMPTZ → NUMERIC (ISO text stays text there; TRUE/FALSE become 1/0).
const SQL_TYPES: Record<ColumnType, string> = {
  text: 'TEXT',
  integer: 'BIGINT',
  number: 'DOUBLE PRECISION',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMPTZ',
};

export async function* sqlChunks(
  name: string,
  columns: Column[],
  rows: AsyncIterable<Record<string, unknown>>,
): AsyncGenerator<string> {
  const ready = prepareColumns(columns);
  const table = ident(name);
  const head = `INSERT INTO ${table} (${columns.map((c) => ident(c.key)).join(', ')}) VALUES\n`;
  const buffer = new ChunkBuffer();
  buffer.push(
    `CREATE TABLE ${table} (\n${columns.map((c) => `  ${ident(c.key)} ${SQL_TYPES[c.type]}`).join(',\n')}\n);\nBEGIN;\n`,
  );
  let inStatement = 0;
  for await (const row of rows) {
    buffer.push((inStatement === 0 ? head : ',\n') + tuple(ready, row));
    if (++inStatement === ROWS_PER_INSERT) {
      buffer.push(';\n');
      inStatement = 0;
    }
    if (buffer.full) yield buffer.take();
  }
  if (inStatement > 0) buffer.push(';\n');
  buffer.push('COMMIT;\n');
  yield buffer.take();
}

function tuple(columns: ReadyColumn[], row: Record<string, unknown>): string {
  let out = '(';
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    if (i > 0) out += ', ';
    out += literal(c.type, c.read(row));
  }
  return out + ')';
}

function literal(type: ColumnType, value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  switch (type) {
    case 'integer':
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(n)) return 'NULL';
      return type === 'integer' ? String(Math.trunc(n)) : String(n);
    }
    case 'boolean':
      return value ? 'TRUE' : 'FALSE';
    case 'timestamp':
      return str(isoText(value));
    default:
      return str(plainText(value));
  }
}

/** PostgreSQL text cannot hold NUL, so it is dropped. The sqlite3 shell drops a CR at the end of an input
 *  line, so a CRLF inside a string is split into two literals joined with || (valid in both). */
function str(s: string): string {
  const body = s.replaceAll("'", "''").replaceAll('\0', '');
  return `'${body.includes('\r\n') ? body.replaceAll('\r\n', "\r' || '\n") : body}'`;
}

export const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;

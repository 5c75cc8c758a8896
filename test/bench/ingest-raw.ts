// The database bound for `npm run bench:ingest`: rows of the very shape the server stored, copied into
// another project's events straight from the client, one connection, no sessions/visitors/dedup work.
// Two ways: 500-row `insert … select from json_to_recordset` statements, and one COPY FROM STDIN of the
// flush's own lines (src/db/flush-text.ts).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql } from 'postgres';
import { copyValue } from '../../src/db/copy-text.ts';
import { EVENT_COLUMNS, eventLine, type EventRow } from '../../src/db/flush-text.ts';
import { recordsetInsert } from './recordset.ts';

const columns = EVENT_COLUMNS;
const types: Partial<Record<(typeof columns)[number], string>> = {
  ts: 'timestamptz',
  props: 'jsonb',
  groups: 'jsonb',
  is_internal: 'boolean',
  is_localhost: 'boolean',
  bot_score: 'smallint',
};
const list = columns.join(', ');

type Row = Omit<EventRow, 'ts'> & { project_id: string; ts: Date };
const RECORDSET_ROWS = 50_000;
export type RawFigures = {
  rows: number;
  recordsetRows: number;
  recordsetRowsPerSecond: number | null;
  copyRowsPerSecond: number;
  /** The COPY's CPU a row: this process (the client) and PostgreSQL (`databaseSeconds`), and its WAL a row. */
  copyClientMicros: number;
  copyDatabaseMicros: number | null;
  copyWalBytes: number;
};

/** Reads up to `limit` rows of `from`, then times inserting them (as project `to`) both ways, or by COPY
 *  alone (`recordset: false`: the JSON way takes about twice as long). `databaseSeconds` answers the CPU
 *  PostgreSQL has spent on this database so far (the bench's CPU meter), for the COPY's CPU a row. */
export async function measureRawInsert(
  sql: Sql,
  from: string,
  to: string,
  limit: number,
  opts: { recordset: boolean; databaseSeconds?: () => Promise<number> } = { recordset: true },
): Promise<RawFigures> {
  const source = await sql.unsafe<Row[]>(`select ${list} from events where project_id = $1 limit $2`, [from, limit]);
  // Ids as stored (as long as the server's): events holds no unique key on them, so twice is allowed.
  const rows = source.map((r) => ({ ...r, project_id: to }));

  let recordset: number | null = null;
  if (opts.recordset) {
    // A steady rate by 50,000 rows: all of a phase's took 20 s and wrote as much WAL again.
    const some = rows.slice(0, RECORDSET_ROWS);
    const chunks: string[] = [];
    for (let i = 0; i < some.length; i += 500) chunks.push(JSON.stringify(some.slice(i, i + 500)));
    const statement = recordsetInsert('events', columns, types);
    const t0 = performance.now();
    for (const chunk of chunks) await sql.unsafe(statement, [chunk]);
    recordset = some.length / ((performance.now() - t0) / 1000);
  }

  const project = copyValue(to);
  const lines = rows.map((r) => eventLine(project, { ...r, ts: r.ts.toISOString() }) + '\n');
  const [db0, wal0] = [await opts.databaseSeconds?.(), await walPosition(sql)];
  const [t0, client0] = [performance.now(), process.cpuUsage()];
  const writable = await sql.unsafe(`copy events (${list}) from stdin`).writable();
  await pipeline(Readable.from(batched(lines, 1000)), writable);
  const [seconds, client] = [(performance.now() - t0) / 1000, process.cpuUsage(client0)];
  const db1 = await opts.databaseSeconds?.();
  const perRow = (n: number) => Math.round(n / Math.max(1, rows.length));
  return {
    rows: rows.length,
    recordsetRows: Math.min(rows.length, RECORDSET_ROWS),
    recordsetRowsPerSecond: recordset,
    copyRowsPerSecond: rows.length / seconds,
    copyClientMicros: perRow(client.user + client.system),
    copyDatabaseMicros: db0 === undefined || db1 === undefined ? null : perRow((db1 - db0) * 1e6),
    copyWalBytes: perRow((await walPosition(sql)) - wal0),
  };
}

/** Where the cluster's write-ahead log is, in bytes. */
export async function walPosition(sql: Sql): Promise<number> {
  const [row] = await sql<[{ bytes: string }]>`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as bytes`;
  return Number(row!.bytes);
}

function* batched(lines: string[], n: number) {
  for (let i = 0; i < lines.length; i += n) yield lines.slice(i, i + n).join('');
}

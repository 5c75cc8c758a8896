// Runs one checked query in a read-only transaction that is always rolled back, reading its rows through
// a server-side cursor in batches, so the row and byte caps stop the database rather than fill memory.
// PostgreSQL: the project's restricted role, a statement timeout. Embedded: the one superuser session,
// which cannot stop a statement, so the planner's estimate decides beforehand and rows are read at once.
import postgres, { type ReservedSql, type Sql } from 'postgres';
import { HttpError } from '../../errors.ts';
import { sqlError, type CheckedQuery } from './guard.ts';

export type SqlTarget =
  | { kind: 'postgres'; pool: Sql; timeoutMs: number }
  | { kind: 'embedded'; sql: Sql; projectId: string; maxCost: number };
export type SqlLimits = { rows: number; bytes: number };
export type SqlColumn = { name: string; type: string; oid: number };
export type SqlRun = {
  columns: SqlColumn[];
  /** The rows as arrays of values, in batches; stops at the caps (then `over` says which). */
  batches: AsyncIterable<unknown[][]>;
  over: () => 'rows' | 'bytes' | null;
  /** Rolls back and gives the connection back; safe to call twice, called by the batches' end. */
  close: () => Promise<void>;
};

const DECLARE = 'declare loupe_sql no scroll cursor for\n';
const EXPLAIN = 'explain (format json)\n';
const BATCH = 500;

export async function openRun(target: SqlTarget, checked: CheckedQuery, limits: SqlLimits): Promise<SqlRun> {
  const db = target.kind === 'postgres' ? target.pool : target.sql;
  const c = await db.reserve();
  let open = true;
  const close = async () => {
    if (!open) return;
    open = false;
    try {
      await c.unsafe('rollback');
      // Whatever a query could have left on a pooled session (settings, locks, listeners) goes.
      if (target.kind === 'postgres') await c.unsafe('discard all');
    } catch {
      // A broken session is the pool's to replace.
    } finally {
      c.release();
    }
  };
  try {
    await c.unsafe('begin isolation level repeatable read read only');
    if (target.kind === 'postgres')
      await c.unsafe(`select set_config('statement_timeout', $1, true), set_config('search_path', 'analyst', true)`, [
        String(target.timeoutMs),
      ]);
    else await prepareEmbedded(c, target, checked);
    await c.unsafe(DECLARE + checked.text + '\n', [], { prepare: false }).execute();
    const first = await c.unsafe(`fetch forward ${BATCH} from loupe_sql`).values();
    const columns = await describe(c, first.columns);
    // A later FETCH can fail too (a division by zero in row 600, the timeout): the caller's 400 as well.
    const fetchMore = () =>
      c
        .unsafe(`fetch forward ${BATCH} from loupe_sql`)
        .values()
        .catch((err: unknown) => Promise.reject(asQueryError(err, checked, timeoutOf(target), '')));
    const reader = read(first, fetchMore, limits);
    if (target.kind === 'postgres') {
      const batches = (async function* () {
        try {
          yield* reader.batches;
        } finally {
          await close();
        }
      })();
      return { columns, batches, over: reader.over, close };
    }
    const all: unknown[][][] = [];
    for await (const batch of reader.batches) all.push(batch);
    await close();
    return {
      columns,
      batches: (async function* () {
        yield* all;
      })(),
      over: reader.over,
      close,
    };
  } catch (err) {
    await close();
    throw asQueryError(err, checked, timeoutOf(target), DECLARE);
  }
}

const timeoutOf = (target: SqlTarget) => (target.kind === 'postgres' ? target.timeoutMs : 0);

/** The embedded session narrows the views by a setting the query cannot change (the guard refuses
 *  set_config), and refuses what it could not stop: recursion, and plans the planner prices too high. */
async function prepareEmbedded(c: ReservedSql, target: Extract<SqlTarget, { kind: 'embedded' }>, q: CheckedQuery) {
  await c.unsafe(`select set_config('loupe.sql_project', $1, true), set_config('search_path', 'analyst', true)`, [
    target.projectId,
  ]);
  if (q.recursive)
    throw sqlError('SQL_REFUSED', 'WITH RECURSIVE is refused on the embedded database, which cannot stop a query.');
  type Plan = { 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] };
  const [plan] = await c
    .unsafe<Plan[]>(EXPLAIN + q.text + '\n', [], { prepare: false })
    .catch((err: unknown) => Promise.reject(asQueryError(err, q, 0, EXPLAIN)));
  const cost = plan!['QUERY PLAN'][0].Plan['Total Cost'];
  if (cost > target.maxCost)
    throw sqlError(
      'SQL_REFUSED',
      `The planner estimates this query at ${Math.round(cost)} cost units; the embedded database, which cannot stop a running query, runs at most ${target.maxCost}. Narrow it (a time range, a LIMIT) or use PostgreSQL.`,
    );
}

function read(first: unknown[][], fetchMore: () => Promise<unknown[][]>, limits: SqlLimits) {
  let over: 'rows' | 'bytes' | null = null;
  let rows = 0;
  let bytes = 0;
  async function* batches() {
    let batch = first;
    for (;;) {
      const kept: unknown[][] = [];
      for (const row of batch) {
        bytes += JSON.stringify(row).length;
        if (++rows > limits.rows || bytes > limits.bytes) {
          over = rows > limits.rows ? 'rows' : 'bytes';
          break;
        }
        kept.push(row);
      }
      if (kept.length > 0) yield kept;
      if (over || batch.length < BATCH) return;
      batch = await fetchMore();
    }
  }
  return { batches: batches(), over: () => over };
}

/** Column names and type names (format_type, as psql shows them) of the cursor's rows. */
async function describe(c: ReservedSql, columns: readonly { name: string; type: number }[]): Promise<SqlColumn[]> {
  const oids = [...new Set(columns.map((col) => col.type))];
  const names = new Map(
    (
      await c.unsafe<{ oid: number; name: string }[]>(
        'select oid::int as oid, format_type(oid, null) as name from pg_catalog.pg_type where oid = any($1::int[])',
        [oids as never],
      )
    ).map((r) => [Number(r.oid), r.name]),
  );
  return columns.map((col) => ({ name: col.name, type: names.get(col.type) ?? String(col.type), oid: col.type }));
}

/** PostgreSQL's complaint about the query itself is the caller's 400, with its position mapped back into
 *  the caller's text; a broken connection or a server fault stays a 500. */
function asQueryError(err: unknown, checked: CheckedQuery, timeoutMs: number, prefix: string): unknown {
  if (err instanceof HttpError || !(err instanceof postgres.PostgresError)) return err;
  if (err.code === '57014')
    return new HttpError('SQL_TIMEOUT', `The query ran past the statement timeout (${timeoutMs} ms) and was stopped.`, [
      { field: 'body.query', message: 'statement timeout' },
    ]);
  if (/^(08|57P|58|XX)/.test(err.code)) return err;
  const at = Number(err.position);
  const position = at > prefix.length ? at - prefix.length + checked.offset : undefined;
  return sqlError('SQL_ERROR', err.message, position);
}

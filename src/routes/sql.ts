// POST /v2/projects/{project}/sql: one read-only SELECT over the project's analyst views
// (docs/sql-route.md). The guard parses and refuses, src/query/sql/run.ts runs it isolated; this
// shapes the answer (JSON, or csv/json/sql streamed) and writes the run's log line.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { forbidden, HttpError } from '../errors.ts';
import type { Caller } from '../auth/principal.ts';
import { exportFormats, exportReply, formatOf, type Column, type ColumnType } from '../query/export/index.ts';
import { checkQuery } from '../query/sql/guard.ts';
import { openRun, type SqlColumn, type SqlRun } from '../query/sql/run.ts';
import { sqlResponse } from './responses.ts';
import { ANALYST_SCHEMA_TEXT } from './sql-schema.ts';
import { route, type RouteContext } from './route.ts';

type Body = { query: string };
type Query = { format?: 'csv' | 'json' | 'sql' };

export const sqlRoutes = [
  route<Query, Body>({
    method: 'POST',
    path: '/v2/projects/{project}/sql',
    access: 'sql',
    tag: 'SQL',
    summary:
      'Run one read-only SELECT over this project\'s analyst views: {"query": "select …"} answers {data, columns, rowCount}; `format` (csv, json, sql) streams up to 1,000,000 rows.',
    description: ANALYST_SCHEMA_TEXT,
    response: sqlResponse,
    query: v.object({ format: v.optional(v.picklist(exportFormats, 'must be csv, json or sql')) }),
    body: v.strictObject({ query: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000)) }),
    async handler(ctx) {
      const { project, services } = ctx;
      if (!project.sql_enabled)
        throw forbidden(`SQL is off for project ${project.id}: an admin turns it on with PATCH {"sqlEnabled": true}.`);
      const started = performance.now();
      const format = formatOf(ctx.query, ctx.headers.accept);
      const done = (outcome: Outcome) => logRun(ctx, { ...outcome, ms: performance.now() - started, format });
      let run: SqlRun;
      let release: () => void = () => {};
      try {
        const checked = await checkQuery(ctx.body.query);
        release = await services.sqlRoute.limiter.acquire();
        const limits = format ? services.sqlRoute.limits.export : services.sqlRoute.limits.answer;
        run = await openRun(await services.sqlRoute.target(project.id), checked, limits);
      } catch (err) {
        release();
        done({ rows: 0, error: err instanceof HttpError ? err.code : 'INTERNAL' });
        throw err;
      }
      const keys = columnKeys(run.columns);
      const toObject = (row: unknown[]) => Object.fromEntries(keys.map((k, i) => [k, row[i]]));
      const columns = run.columns.map((c, i) => ({ name: keys[i]!, type: c.type }));
      if (!format) {
        const data: Record<string, unknown>[] = [];
        try {
          for await (const batch of run.batches) for (const row of batch) data.push(toObject(row));
        } finally {
          release();
        }
        if (run.over()) {
          const limit = services.sqlRoute.limits.answer;
          done({ rows: data.length, error: 'SQL_TOO_LARGE' });
          throw new HttpError(
            'SQL_TOO_LARGE',
            `The answer is over ${run.over() === 'rows' ? `${limit.rows} rows` : `${limit.bytes} bytes`}: add a LIMIT, or ask for format=csv, json or sql (up to 1,000,000 rows).`,
          );
        }
        done({ rows: data.length });
        return { data, columns, rowCount: data.length };
      }
      // The client may leave before the stream starts; the run's connection goes back either way.
      const leave = () => void run.close().finally(release);
      ctx.signal.addEventListener('abort', leave, { once: true });
      let rows = 0;
      // The status line is gone once rows flow: a query that fails midway (the timeout) ends the export
      // early, and the json envelope says why.
      let failure: HttpError | null = null;
      async function* all() {
        try {
          for await (const batch of run.batches) for (const row of batch) (rows++, yield toObject(row));
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          failure = err;
        } finally {
          ctx.signal.removeEventListener('abort', leave);
          await run.close();
          release();
          done({ rows, truncated: run.over() !== null || failure !== null, error: failure?.code });
        }
      }
      return exportReply(format, {
        name: `sql_${project.id}`,
        columns: run.columns.map((c, i) => ({ key: keys[i]!, type: columnType(c) }) satisfies Column),
        rows: all(),
        // Read after the rows are written (src/query/export/json.ts), so the getters count them.
        envelope: {
          columns,
          get rowCount() {
            return rows;
          },
          get truncated() {
            return run.over() !== null || failure !== null;
          },
          get error() {
            return failure ? failure.toBody().error : undefined;
          },
        },
      });
    },
  }),
];

/** Column names as keys: a repeated name (two `count` columns) gets _2, _3, … so no value is lost. */
function columnKeys(columns: SqlColumn[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    return n === 1 ? c.name : `${c.name}_${n}`;
  });
}

const TYPES: Record<number, ColumnType> = {
  16: 'boolean',
  20: 'integer',
  21: 'integer',
  23: 'integer',
  26: 'integer',
  700: 'number',
  701: 'number',
  1700: 'number',
  1082: 'timestamp',
  1114: 'timestamp',
  1184: 'timestamp',
};
const columnType = (c: SqlColumn): ColumnType => TYPES[c.oid] ?? 'text';

type Outcome = { rows: number; error?: string; truncated?: boolean };

/** One `pipeline` line in this project's own log stream: who ran a query, how long, how many rows, and a
 *  fingerprint of its text (never the text: the stream is readable by more people than may run SQL). */
function logRun(ctx: RouteContext<Query, Body>, o: Outcome & { ms: number; format: string | null }) {
  const by = who(ctx.caller);
  const ms = Math.round(o.ms);
  const message = o.error
    ? `SQL query by ${by} failed (${o.error}) after ${ms} ms`
    : `SQL query by ${by}: ${o.rows} rows in ${ms} ms${o.truncated ? ' (cut at the export limit)' : ''}`;
  const fingerprint = createHash('sha256').update(ctx.body.query).digest('hex').slice(0, 16);
  ctx.services.cluster
    .project(ctx.project.id)
    .then((p) =>
      p.log({
        level: o.error ? 'warn' : 'info',
        kind: 'pipeline',
        source: 'api',
        visitor: null,
        session: null,
        message,
        data: {
          requestId: ctx.requestId,
          sql: { by, durationMs: ms, rows: o.rows, format: o.format ?? 'answer', fingerprint, error: o.error ?? null },
        },
      }),
    )
    .catch((err: unknown) => ctx.services.log.warn('could not log a SQL run', { err, projectId: ctx.project.id }));
}

function who(caller: Caller): string {
  const p = caller.principal;
  if (p.kind === 'member') return `${p.role} ${p.login}`;
  if (p.kind === 'token') return `token ${p.tokenId}`;
  return p.kind;
}

// The flush writer's executor of a flush plan (../flush-plan.ts), for PostgreSQL: the plan's steps as one
// pipeline on the project's connection (pool.ts), one transaction committed at its Sync, the events and
// their keys by COPY inside it, in the same text the `postgres` client's executor sends. A flush is then one
// write and one answer; the client's own COPY stream takes three round trips (docs/sql.md, "The write path").
import type { Sql } from 'postgres';
import { EVENTS_COPY, KEYS_COPY, PLAN_STATEMENTS, type FlushExecutor, type Rows } from '../flush-plan.ts';
import { statementText } from '../queries.ts';
import type { Step, StepResult } from './connection.ts';
import { createWriterPool, writerOptions } from './pool.ts';

/** The writer's sessions report timestamps in UTC (isoTimestamp reads them so) and plan each prepared
 *  statement once: an ingest statement's plan never depends on its parameters. */
const SESSION = {
  application_name: 'loupe-writer',
  TimeZone: 'UTC',
  DateStyle: 'ISO',
  plan_cache_mode: 'force_generic_plan',
};

/** What each connection prepares: the plan's statements by their names, and the two COPYs. */
const STATEMENTS: Record<string, string> = {
  ...Object.fromEntries(PLAN_STATEMENTS.map((name) => [name, statementText(name)])),
  keys: KEYS_COPY,
  events: EVENTS_COPY,
};

const TIMESTAMPTZ = 1184;

export type WireExecutor = { run: FlushExecutor; close: () => Promise<void> };

/** The flush writer for a `postgres` client's connection settings. Throws WriterUnsupported (pool.ts) for
 *  settings it cannot serve. `run` rejects with an `unsent` error when no connection could be had: nothing
 *  was written then, and the caller may run the plan another way. */
export function createWireExecutor(sql: Sql, opts: { onOpenError?: (err: unknown) => void } = {}): WireExecutor {
  const pool = createWriterPool(writerOptions(sql, SESSION), STATEMENTS, opts);
  return {
    async run(projectId, steps) {
      const sent: Step[] = [];
      for (const s of steps) {
        if (s.copy)
          sent.push(
            { statement: 'keys', copy: `${s.copy.keys()}\n` },
            { statement: 'events', copy: `${s.copy.events}\n` },
          );
        else sent.push({ statement: s.statement, params: s.params.map(param) });
      }
      const results = await pool.run(projectId, sent);
      // The two COPYs answer for the events' step, which has no rows.
      const answers: Rows[] = [];
      for (let i = 0, at = 0; i < steps.length; i++, at++) {
        if (steps[i]!.copy) (answers.push([]), at++);
        else answers.push(records(results[at]!));
      }
      return answers;
    },
    close: pool.close,
  };
}

/** A parameter in text form: an array as an array literal, each element quoted. */
function param(p: string | string[] | null): string | null {
  if (p === null || typeof p === 'string') return p;
  return `{${p.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

/** A result's rows by column name, as the `postgres` client answers them for the plan's reads: text,
 *  a timestamptz as a Date. */
function records(r: StepResult): Rows {
  return r.rows.map((row) => {
    const out: Record<string, unknown> = {};
    r.columns.forEach((c, i) => {
      const v = row[i]!;
      out[c.name] = c.type === TIMESTAMPTZ && v !== null ? new Date(isoTimestamp(v)) : v;
    });
    return out;
  });
}

/** A timestamptz as PostgreSQL writes it in UTC with DateStyle ISO ('2026-11-24 23:01:02.123456+00'), as
 *  an ISO 8601 string to the millisecond, like Date.prototype.toISOString. */
export function isoTimestamp(text: string): string {
  if (!text.endsWith('+00') || text[10] !== ' ') return new Date(text).toISOString();
  const fraction = text[19] === '.' ? text.slice(20, text.length - 3) : '';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
}

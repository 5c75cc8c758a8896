// Stores batches of seeded rows in the flush's text form (src/db/flush-text.ts), whose encoders write every
// line: by COPY FROM STDIN on PostgreSQL (events on one connection, sessions, visitors and speed samples on
// another, at the same time), and on embedded PGlite, whose socket has no COPY, as the one text parameter
// of the flush's and the checkpoint's own statements (insert_events.sql, which also stores the events'
// de-duplication keys, insert_speed_samples.sql, upsert_sessions.sql, upsert_visitors.sql).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql } from 'postgres';
import { copyValue } from '../db/copy-text.ts';
import {
  EVENT_COLUMNS,
  SESSION_COLUMNS,
  SPEED_COLUMNS,
  VISITOR_COLUMNS,
  eventLine,
  sessionLine,
  speedLine,
  visitorLine,
} from '../db/flush-text.ts';
import { query } from '../db/queries.ts';
import type { SeedVisitor } from './generate.ts';
import { eventOf, sessionEvent, sessionRow, speedOf, visitorRow } from './rows.ts';

export type BatchWriter = {
  add: (v: SeedVisitor) => void;
  /** Events gathered since the last flush. */
  readonly size: number;
  /** Hands the gathered rows to the database and starts a new batch; resolves when they are stored. */
  flush: () => Promise<void>;
};

/** A batch's lines; sessions and visitors without their project, which the statements take apart. */
type Lines = { events: string[]; sessions: string[]; visitors: string[]; speed: string[] };

/** Gathers the lines of each visitor added; `store` writes a batch of them. */
function textWriter(projectId: string, store: (b: Lines) => Promise<void>): BatchWriter {
  let batch: Lines = { events: [], sessions: [], visitors: [], speed: [] };
  const project = copyValue(projectId);
  return {
    get size() {
      return batch.events.length;
    },
    add(v) {
      batch.visitors.push(visitorLine(visitorRow(v)));
      for (const s of v.sessions) {
        batch.sessions.push(sessionLine(sessionRow(s)));
        const row = sessionEvent(s);
        for (const e of s.events) {
          const ts = new Date(e.ts).toISOString();
          batch.events.push(eventLine(project, eventOf(row, e, ts)));
          if (e.vitals) batch.speed.push(speedLine(speedOf(projectId, s, e, ts)));
        }
      }
    },
    flush() {
      const b = batch;
      batch = { events: [], sessions: [], visitors: [], speed: [] };
      return store(b);
    },
  };
}

export function copyWriter(sql: Sql, projectId: string): BatchWriter {
  const project = `${copyValue(projectId)}\t`;
  const owned = (lines: string[]) => lines.map((l) => project + l);
  return textWriter(projectId, async (b) => {
    await Promise.all([
      copy(sql, 'events', EVENT_COLUMNS, b.events),
      (async () => {
        await copy(sql, 'sessions', ['project_id', ...SESSION_COLUMNS], owned(b.sessions));
        await copy(sql, 'visitors', ['project_id', ...VISITOR_COLUMNS], owned(b.visitors));
        await copy(sql, 'speed_samples', SPEED_COLUMNS, b.speed);
      })(),
    ]);
  });
}

export function statementWriter(sql: Sql, projectId: string): BatchWriter {
  return textWriter(projectId, async (b) => {
    for (const lines of pieces(b.events)) await query(sql, 'insert_events', [lines]);
    for (const lines of pieces(b.sessions)) await query(sql, 'upsert_sessions', [projectId, lines]);
    for (const lines of pieces(b.visitors)) await query(sql, 'upsert_visitors', [projectId, lines]);
    for (const lines of pieces(b.speed)) await query(sql, 'insert_speed_samples', [lines]);
  });
}

/** Table and column names are constants of this module: nothing from outside is spliced into the statement. */
async function copy(sql: Sql, table: string, columns: readonly string[], lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const writable = await sql.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
  await pipeline(Readable.from(Array.from(pieces(lines), (p) => p + '\n')), writable);
}

/** The lines by 2,000, each piece one text (lines joined by a line break, none after the last). */
function* pieces(lines: string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += 2_000) yield lines.slice(i, i + 2_000).join('\n');
}

// Two ways to store batches of seeded rows: COPY FROM STDIN on PostgreSQL (events on one connection,
// sessions, visitors and speed samples on another, at the same time), and 1,000-row
// `insert … select from json_to_recordset` statements on embedded PGlite, whose socket has no COPY.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql } from 'postgres';
import { copyLine, copyValue } from '../db/copy-text.ts';
import { recordsetInsert } from '../db/recordset.ts';
import type { Page } from './catalog.ts';
import type { SeedVisitor } from './generate.ts';
import { sessionPart, sessionRow, tables, visitorRow, type Table } from './rows.ts';

export type BatchWriter = {
  add: (v: SeedVisitor) => void;
  /** Events gathered since the last flush. */
  readonly size: number;
  /** Hands the gathered rows to the database and starts a new batch; resolves when they are stored. */
  flush: () => Promise<void>;
};

type Lines = { events: string[]; sessions: string[]; visitors: string[]; speed: string[] };

export function copyWriter(sql: Sql, projectId: string): BatchWriter {
  let batch: Lines = { events: [], sessions: [], visitors: [], speed: [] };
  const pageText = new Map<Page, string>(); // the catalog's pages are few: format each once
  return {
    get size() {
      return batch.events.length;
    },
    add(v) {
      batch.visitors.push(copyLine(visitorRow(projectId, v)));
      for (const s of v.sessions) {
        batch.sessions.push(copyLine(sessionRow(projectId, s)));
        const suffix = copyLine(sessionPart(projectId, s));
        for (const e of s.events) {
          let page = pageText.get(e.page);
          if (page === undefined) pageText.set(e.page, (page = copyLine([e.page.path, e.page.route, e.page.title])));
          batch.events.push(
            `${new Date(e.ts).toISOString()}\t${e.id}\t${e.name}\t${page}\t${e.props ? copyValue(e.props) : '{}'}\t${copyValue(e.issue)}\t${suffix}`,
          );
          if (e.vitals) {
            const x = e.vitals;
            batch.speed.push(
              copyLine([
                projectId,
                new Date(e.ts),
                e.id,
                v.id,
                e.page.path,
                e.page.route,
                s.agent.device,
                s.place.country,
                s.environment,
                x.lcp,
                x.inp,
                x.cls,
                x.fcp,
                x.ttfb,
                x.element,
                s.botScore,
              ]),
            );
          }
        }
      }
    },
    async flush() {
      const b = batch;
      batch = { events: [], sessions: [], visitors: [], speed: [] };
      await Promise.all([
        copy(sql, tables.events, b.events),
        (async () => {
          await copy(sql, tables.sessions, b.sessions);
          await copy(sql, tables.visitors, b.visitors);
          await copy(sql, tables.speed, b.speed);
        })(),
      ]);
    },
  };
}

async function copy(sql: Sql, table: Table, lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const writable = await sql.unsafe(`copy ${table.name} (${table.columns.join(', ')}) from stdin`).writable();
  await pipeline(Readable.from(pieces(lines, 2_000)), writable);
}

function* pieces(lines: string[], n: number) {
  for (let i = 0; i < lines.length; i += n) yield lines.slice(i, i + n).join('\n') + '\n';
}

type Records = { events: unknown[][]; sessions: unknown[][]; visitors: unknown[][]; speed: unknown[][] };

export function recordsetWriter(sql: Sql, projectId: string): BatchWriter {
  let batch: Records = { events: [], sessions: [], visitors: [], speed: [] };
  return {
    get size() {
      return batch.events.length;
    },
    add(v) {
      batch.visitors.push(visitorRow(projectId, v));
      for (const s of v.sessions) {
        batch.sessions.push(sessionRow(projectId, s));
        const part = sessionPart(projectId, s);
        for (const e of s.events) {
          batch.events.push([
            new Date(e.ts),
            e.id,
            e.name,
            e.page.path,
            e.page.route,
            e.page.title,
            e.props ?? {},
            e.issue ?? null,
            ...part,
          ]);
          if (e.vitals) {
            const x = e.vitals;
            batch.speed.push([
              projectId,
              new Date(e.ts),
              e.id,
              v.id,
              e.page.path,
              e.page.route,
              s.agent.device,
              s.place.country,
              s.environment,
              x.lcp,
              x.inp,
              x.cls,
              x.fcp,
              x.ttfb,
              x.element,
              s.botScore,
            ]);
          }
        }
      }
    },
    async flush() {
      const b = batch;
      batch = { events: [], sessions: [], visitors: [], speed: [] };
      await insert(sql, tables.events, b.events);
      await insert(sql, tables.sessions, b.sessions);
      await insert(sql, tables.visitors, b.visitors);
      await insert(sql, tables.speed, b.speed);
    },
  };
}

async function insert(sql: Sql, table: Table, rows: unknown[][]): Promise<void> {
  // Column lists are constants of this module: nothing from outside is spliced into the statement.
  const statement = recordsetInsert(table.name, table.columns, table.types);
  for (let i = 0; i < rows.length; i += 1_000) {
    const objects = rows.slice(i, i + 1_000).map((r) => Object.fromEntries(table.columns.map((c, j) => [c, r[j]])));
    await sql.unsafe(statement, [JSON.stringify(objects)]);
  }
}

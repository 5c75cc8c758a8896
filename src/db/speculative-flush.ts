// A flush as one pipeline of the flush writer (src/db/wire): sent whole, before any answer, as if every
// event were new. The de-duplication keys go first (COPY into ingest_dedup, in id order); a key already
// stored (a retried event) fails the transaction with a unique violation, nothing of it is kept, and the
// event store writes the flush again the checked way (claim the keys, then store only the new events).
// Retries are rare, so nearly every flush is one write and one answer.
import type { LogLine } from '../../actors/log-ring.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { copyValue } from './copy-text.ts';
import { COPY_STATEMENT, copyData } from './event-copy.ts';
import type { FoldEntry, JournalRow } from './fold-journal.ts';
import { separatedLines } from './logs.ts';
import { statementText } from './queries.ts';
import { textOrJson } from './separated-text.ts';
import type { Step, StepResult } from './wire/connection.ts';

/** What the flush writer prepares on each of its connections, by the names the steps use. */
export const WRITER_STATEMENTS: Record<string, string> = {
  hold: statementText('hold_project'),
  keys: statementText('copy_dedup_keys'),
  events: COPY_STATEMENT,
  journal: statementText('insert_fold_journal'),
  logs: statementText('insert_logs'),
  marks: statementText('mark_rollup_days_stale'),
  speed: statementText('insert_speed_samples'),
  issues: statementText('upsert_issues'),
};

/** The writer's sessions report timestamps in UTC (isoTimestamp reads them so) and plan each prepared
 *  statement once: an ingest statement's plan never depends on its parameters. */
export const WRITER_SESSION = {
  application_name: 'loupe-writer',
  TimeZone: 'UTC',
  DateStyle: 'ISO',
  plan_cache_mode: 'force_generic_plan',
};

/** One flush's parts, made as for any flush (the journal row, the log lines, …) from all of its events. */
export type FlushParts = {
  projectId: string;
  owner: string;
  events: readonly EnrichedEvent[];
  journal: JournalRow | null;
  logs: readonly PendingLog[];
  /** UTC days of the events, in order (rollup marks are locked in key order). */
  days: string[];
  /** insert_speed_samples.sql's parameters (text or JSON), and upsert_issues.sql's JSON; null when the flush has none. */
  speed: [text: string | null, json: string | null] | null;
  issues: string | null;
  occurrenceRules: string;
};

export type FlushAnswer = { fold: FoldEntry | null; logs: LogLine[] };

/** The flush's steps, and how to read what they answered. The issue upsert and then the log lines go last:
 *  the shared issue rows, and the project's log lock (insert_logs.sql: another writer of the project's lines
 *  waits there until this flush commits), are held for the shortest time. */
export function speculativeFlush(f: FlushParts): { steps: Step[]; read: (results: StepResult[]) => FlushAnswer } {
  const steps: Step[] = [{ statement: 'hold', params: [f.projectId] }];
  if (f.events.length > 0)
    steps.push(
      { statement: 'keys', copy: keyData(f.projectId, f.events) },
      { statement: 'events', copy: copyData(f.events) },
    );
  const journalAt = f.journal
    ? steps.push({ statement: 'journal', params: [f.projectId, f.owner, f.journal.body] }) - 1
    : -1;
  if (f.days.length > 0) steps.push({ statement: 'marks', params: [f.projectId, `{${f.days.join(',')}}`] });
  if (f.speed !== null) steps.push({ statement: 'speed', params: f.speed });
  if (f.issues !== null) steps.push({ statement: 'issues', params: [f.projectId, f.issues, f.occurrenceRules] });
  const logsAt =
    f.logs.length === 0
      ? -1
      : steps.push({
          statement: 'logs',
          params: [f.projectId, ...textOrJson(separatedLines(f.logs), () => JSON.stringify(f.logs))],
        }) - 1;
  return {
    steps,
    read(results) {
      let fold: FoldEntry | null = null;
      if (f.journal) {
        const { body: _body, ...deltas } = f.journal;
        fold = { journalId: results[journalAt]!.rows[0]![0]!, ...deltas };
      }
      const rows = logsAt < 0 ? [] : results[logsAt]!.rows;
      return { fold, logs: f.logs.map((l, i) => ({ ...l, id: rows[i]![0]!, ts: isoTimestamp(rows[i]![1]!) })) };
    },
  };
}

/** ingest_dedup's rows in COPY's text form, in id order: concurrent writers take the keys in one order (the
 *  checked way's statements sort with collate "C", by code point, which UTF-16 order matches but for
 *  astral characters against U+E000–U+FFFF: two such flushes may then deadlock, and are run again). */
export function keyData(projectId: string, events: readonly Pick<EnrichedEvent, 'id' | 'ts'>[]): string {
  const sorted = [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const project = copyValue(projectId);
  // The parts of every line joined at once: one flat string, where appending made a tree of cons strings.
  const parts: string[] = [];
  for (const e of sorted) parts.push(project, '\t', copyValue(e.id), '\t', e.ts, '\n');
  return parts.join('');
}

/** A timestamptz as PostgreSQL writes it in UTC with DateStyle ISO ('2026-11-24 23:01:02.123456+00'), as
 *  an ISO 8601 string to the millisecond, like Date.prototype.toISOString. */
export function isoTimestamp(text: string): string {
  if (!text.endsWith('+00') || text[10] !== ' ') return new Date(text).toISOString();
  const fraction = text[19] === '.' ? text.slice(20, text.length - 3) : '';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
}

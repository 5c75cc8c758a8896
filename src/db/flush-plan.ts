// What a flush writes, in order: one plan for PostgreSQL and embedded PGlite alike, run in one transaction
// with every statement sent before any answer, by one of two executors of the same steps: the `postgres`
// client's (flush-executor.ts) or the flush writer's pipeline (wire/flush-executor.ts, PostgreSQL). It is
// made as if every event were new: a key already stored fails the transaction (insert_events.sql), and the
// store (event-store.ts) makes the plan again from the events whose keys were not stored.
import type { LogLine } from '../../actors/log-ring.ts';
import type { CounterDelta, PendingLog } from '../../actors/project-actor.ts';
import { issueDeltas } from '../../actors/issue-deltas.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { journalRow, type CounterRow, type FoldEntry } from './fold-journal.ts';
import { EVENT_COLUMNS, eventRows, keyRows, logRows, speedRows } from './flush-text.ts';
import { flushMarks, markParams } from './rollup-marks.ts';

/** Every statement a plan may hold (sql/queries), in plan order: the flush writer prepares them all. */
export const PLAN_STATEMENTS = [
  'hold_project',
  'insert_events',
  'insert_fold_journal',
  'mark_rollup_days_stale',
  'insert_speed_samples',
  'upsert_issues',
  'insert_logs',
] as const;

/** The events' step by COPY FROM STDIN (PostgreSQL): their keys, then the events, in the flush's text
 *  form. Constants of this module: nothing from outside is spliced into them. */
export const KEYS_COPY = 'copy ingest_dedup (project_id, event_id, ts) from stdin';
export const EVENTS_COPY = `copy events (${EVENT_COLUMNS.join(', ')}) from stdin`;

/** One statement of sql/queries and its parameters. The events' step also has its rows for COPY FROM STDIN:
 *  the same text, and their keys in id order (KEYS_COPY, EVENTS_COPY; lines without the last line break). */
export type Step = {
  statement: (typeof PLAN_STATEMENTS)[number];
  params: (string | string[] | null)[];
  copy?: { keys: () => string; events: string };
};

/** A statement's answer: its rows by column name (a timestamptz as a Date, a bigint as its text). */
export type Rows = readonly Record<string, unknown>[];

/** Runs a project's plan in one transaction and answers each step's rows, in order; a failed step fails
 *  the transaction, and nothing of it is kept. */
export type FlushExecutor = (projectId: string, steps: readonly Step[]) => Promise<Rows[]>;

export type FlushInput = {
  projectId: string;
  /** This process, as the fold journal names it. */
  owner: string;
  /** The events to store, every one taken for new. */
  events: readonly EnrichedEvent[];
  logs: readonly PendingLog[];
  counters: CounterDelta;
  /** upsert_issues.sql's $3: what a new occurrence does to an issue in each status. */
  occurrenceRules: string;
};

export type FlushAnswer = { fold: FoldEntry | null; logs: LogLine[] };

/** The flush's steps, and how to read their answers (one a step, in order). The issue upsert and then the
 *  log lines go last: the shared issue rows, and the project's log lock (insert_logs.sql: another writer of
 *  the project's lines waits there until this flush commits), are held for the shortest time. */
export function flushPlan(f: FlushInput): { steps: Step[]; read: (answers: readonly Rows[]) => FlushAnswer } {
  const { projectId, events } = f;
  // Fails the transaction when the project is gone (SQLSTATE P0002): nothing sent behind it is kept.
  const steps: Step[] = [{ statement: 'hold_project', params: [projectId] }];
  if (events.length > 0) {
    const rows = eventRows(projectId, events);
    steps.push({
      statement: 'insert_events',
      params: [rows],
      copy: { keys: () => keyRows(projectId, events), events: rows },
    });
  }
  const counted = countedRow(f.counters);
  const journal = events.length > 0 || counted ? journalRow(events, counted) : null;
  const journalAt = journal
    ? steps.push({ statement: 'insert_fold_journal', params: [projectId, f.owner, journal.body] }) - 1
    : -1;
  // Past days the new events fall in: their rollups (src/query/rollup) must count them, a few late events
  // one by one, more by rebuilding the day (rollup-marks.ts). A step of its own, which goes the day the
  // rollups no longer need it.
  if (events.length > 0)
    steps.push({ statement: 'mark_rollup_days_stale', params: [projectId, ...markParams(flushMarks(events))] });
  const speed = speedRows(events);
  if (speed !== null) steps.push({ statement: 'insert_speed_samples', params: [speed] });
  const issues = issueDeltas(events);
  if (issues.length > 0)
    steps.push({ statement: 'upsert_issues', params: [projectId, JSON.stringify(issues), f.occurrenceRules] });
  const logsAt =
    f.logs.length > 0 ? steps.push({ statement: 'insert_logs', params: [projectId, logRows(f.logs)] }) - 1 : -1;
  return {
    steps,
    read(answers) {
      let fold: FoldEntry | null = null;
      if (journal) {
        const { body: _body, ...deltas } = journal;
        fold = { journalId: answers[journalAt]![0]!.id as string, ...deltas };
      }
      const ids = logsAt < 0 ? [] : answers[logsAt]!;
      const logs = f.logs.map((l, i) => ({ ...l, id: ids[i]!.id as string, ts: (ids[i]!.ts as Date).toISOString() }));
      return { fold, logs };
    },
  };
}

/** The flush's counts with their hour, or null when it counted nothing. */
function countedRow(c: CounterDelta): CounterRow | null {
  if (c.accepted + c.duplicates + c.rejected + c.rateLimited === 0) return null;
  return { ...c, hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString() };
}

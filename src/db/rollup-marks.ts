// Stale marks for the day rollups (src/query/rollup): a writer of events in a past day or today calls this
// inside its transaction. Cheap by design: one statement that only appends (mark_rollup_days_stale.sql).
// Today is built too (its rows as of the build, read with the marks' share added), so every event written
// into today after a build must carry a mark, as a late event into yesterday does.
//
// A mark says how much of its day changed. A whole-day mark (a seed, a retention pass, a flush with many
// events of the day) sends reads of the day to events until the builder rebuilds it. An event mark (a flush
// with a few late events of a built day: a client's offline queue, a clock behind, a public key's 24 hours)
// and a session mark (a checkpoint that stretched a session into the day) keep the day readable from its
// rollup rows, plus the marked events' share (src/query/rollup/late.ts), and the builder rebuilds it at
// leisure.
import type { Sql, TransactionSql } from 'postgres';
import { query } from './queries.ts';

/** At most this many events of one day are marked one by one in a flush; more mark the whole day: a
 *  backfill, an import or a burst rebuilds the day (today: reads it from events until then), a trickle of
 *  late events, or today's traffic on a site of ordinary size, does not. */
export const EVENT_MARKS_PER_DAY = 64;

export type Marks = {
  /** UTC days ('YYYY-MM-DD') changed as a whole. */
  days: string[];
  /** Late events, each of a past day: id, ts (ISO) and session. */
  events: { id: string; ts: string; session: string }[];
  /** Sessions whose span now reaches into a past day: the day and the session. */
  sessions: { day: string; session: string }[];
};

/** mark_rollup_days_stale.sql's parameters after the project. */
export function markParams(marks: Marks): string[][] {
  const { days, events, sessions } = marks;
  return [
    days,
    events.map((e) => e.id),
    events.map((e) => e.ts),
    events.map((e) => e.session),
    sessions.map((s) => s.day),
    sessions.map((s) => s.session),
  ];
}

/** Whether `marks` marks nothing. */
export const noMarks = (m: Marks) => m.days.length + m.events.length + m.sessions.length === 0;

/** Marks the days, events and sessions a transaction writes into, as far as they are past days or today. */
export async function markRollupDaysStale(tx: Sql | TransactionSql, projectId: string, marks: Marks): Promise<void> {
  if (noMarks(marks)) return;
  await query(tx, 'mark_rollup_days_stale', [projectId, ...markParams(marks)]);
}

/**
 * A flush's marks: the events of each UTC day up to today one by one when there are at most
 * EVENT_MARKS_PER_DAY of them, otherwise the day. The days this process takes for later than today go as
 * whole days: the statement drops every day the database's clock calls future (no build of it can exist
 * yet), so a clock that differs near midnight marks the day whole rather than not at all.
 */
export function flushMarks(
  events: readonly { id: string; ts: string; session_id: string }[],
  today = new Date().toISOString().slice(0, 10),
): Marks {
  const byDay = new Map<string, { id: string; ts: string; session: string }[]>();
  for (const e of events) {
    const day = utcDay(e.ts);
    let list = byDay.get(day);
    if (!list) byDay.set(day, (list = []));
    list.push({ id: e.id, ts: e.ts, session: e.session_id });
  }
  const out: Marks = { days: [], events: [], sessions: [] };
  for (const day of [...byDay.keys()].sort()) {
    const list = byDay.get(day)!;
    if (day > today || list.length > EVENT_MARKS_PER_DAY) out.days.push(day);
    else out.events.push(...list);
  }
  return out;
}

/** Whole-day marks of the distinct UTC days of ISO timestamps. */
export const dayMarks = (timestamps: Iterable<string>): Marks => ({
  days: utcDays(timestamps),
  events: [],
  sessions: [],
});

/** The distinct UTC days of ISO timestamps. A flush has thousands, nearly all in the canonical UTC form
 *  (`toISOString()`), whose day is its first ten characters: no Date is made for those. */
export function utcDays(timestamps: Iterable<string>): string[] {
  const days = new Set<string>();
  for (const ts of timestamps) days.add(utcDay(ts));
  return [...days].sort(); // marks are locked in key order by every writer: no deadlock between them
}

const utcDay = (ts: string) =>
  ts.length === 24 && ts[10] === 'T' && ts[23] === 'Z' ? ts.slice(0, 10) : new Date(ts).toISOString().slice(0, 10);

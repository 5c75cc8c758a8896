// What a project actor is given and answers: the store it writes through (it never imports a database
// client), the log lines and counters a flush writes beside its events, and what an ingest call resolves to.
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { FoldEntry, PendingFolds } from './flush-rows.ts';
import type { LogLine } from './log-ring.ts';
import type { RealtimeRecord } from './realtime-window.ts';
import type { StoredSession, StoredSpan } from './sessionizer.ts';

export type PendingLog = Omit<LogLine, 'id' | 'ts'> & { ts?: string };

export type CounterDelta = { accepted: number; duplicates: number; rejected: number; rateLimited: number };

export type ActorStore = {
  /** One transaction: insert the events (duplicates skipped), then the log lines and counters that
   *  `after` derives from which events were new. Answers the inserted ids, the stored lines, and the
   *  journaled deltas of sessions, visitors and counters (null when nothing was new or counted). */
  commit: (
    projectId: string,
    events: EnrichedEvent[],
    after: (inserted: Set<string>) => { logs: PendingLog[]; counters: CounterDelta },
  ) => Promise<{ inserted: Set<string>; logs: LogLine[]; fold: FoldEntry | null }>;
  /** Applies held deltas to sessions, visitors and counters (those not applied already), in one transaction. */
  checkpoint: (projectId: string, pending: PendingFolds) => Promise<void>;
  /** What was live in the project at `now` (ms) as stored: an actor takes it back before its first event, so
   *  a restart neither splits sessions nor empties realtime. A store without it starts every actor empty. */
  liveState?: (projectId: string, now: number) => Promise<LiveState>;
  /** For each (visitor, at), the visitor's stored session whose span, widened by the 30-minute gap, holds
   *  `at` (the nearest when several do), or null: where late events go whose sessions are no longer held,
   *  asked for all of them at once. Without it, such an event opens a session of its own. */
  findSessions?: (projectId: string, wanted: { visitor: string; at: number }[]) => Promise<(StoredSpan | null)[]>;
};

/** Sessions active within the gap (oldest activity first), the realtime window's ten minutes of human
 *  events (oldest first), and the visitors marked internal. */
export type LiveState = { sessions: StoredSession[]; recent: RealtimeRecord[]; internalVisitors?: string[] };

export type IngestMeta = { requestId: string; rejected: number; rejectionLogs: PendingLog[] };
export type IngestOutcome = { accepted: number; duplicates: number };

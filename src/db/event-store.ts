// The actors' store: one group commit per flush, in a single transaction, as planned by flush-plan.ts:
// hold the project, store the events and their de-duplication keys, journal what they add to sessions and
// visitors and to the hourly ingest counters (applied at checkpoints, src/db/fold-journal.ts), mark their
// days for the rollups, add their speed samples and issues, append the log lines. On PostgreSQL the flush
// writer runs the plan (wire/flush-executor.ts) unless it is turned off; the `postgres` client runs it
// otherwise (flush-executor.ts), and when the writer has no connection. Monthly partitions are made ahead of use.
import type { Sql } from 'postgres';
import type { ActorStore } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { decideTransition, type IssueStatus } from '../../actors/issue-lifecycle.machine.ts';
import { createFoldJournal, type FoldJournal } from './fold-journal.ts';
import { runFlush } from './flush-executor.ts';
import { flushPlan, type FlushExecutor, type Step } from './flush-plan.ts';
import { findCoveringSessions, liveState } from './live-state.ts';
import { notFound } from '../errors.ts';
import { query } from './queries.ts';
import { retryOnConflict } from './retry.ts';

/** What a new occurrence does to an issue in each status, asked of the lifecycle machine once, so the
 *  flush applies the machine's decision instead of a rule of its own. */
export const OCCURRENCE_RULES = JSON.stringify(
  Object.fromEntries(
    (['open', 'resolved', 'ignored'] as IssueStatus[]).map((status) => {
      const at = '2000-01-01T00:00:00.000Z';
      const decide = (isRegression: boolean) => {
        const d = decideTransition(
          { status, isRegression, resolvedAt: status === 'resolved' ? at : null },
          { type: 'occurrence', at },
        );
        if (!d.ok) throw new Error(`the lifecycle machine refuses an occurrence of a ${status} issue: ${d.reason}`);
        return d.next;
      };
      const [a, b] = [decide(false), decide(true)];
      return [
        status,
        {
          status: a.status,
          regression: a.isRegression === b.isRegression ? a.isRegression : null,
          clearResolvedAt: a.resolvedAt === null,
        },
      ];
    }),
  ),
);

export type EventStore = ActorStore &
  Pick<FoldJournal, 'recover' | 'heartbeat'> & { ensurePartition: (at: Date) => Promise<void> };

type Commit = ActorStore['commit'];
type Committed = Awaited<ReturnType<Commit>>;

/** How many times a flush is written again after a key it took for new was stored meanwhile. */
const WRITES = 4;

/** `owner` names this process in the fold journal. `embedded`: PGlite, whose socket has no COPY FROM STDIN.
 *  `writer`: the flush writer's executor (PostgreSQL), whose `unsent` failures wrote nothing. */
export function createEventStore(
  sql: Sql,
  opts: { owner: string; embedded?: boolean; writer?: FlushExecutor },
): EventStore {
  const copy = !opts.embedded;
  const { writer } = opts;
  const run = (projectId: string, steps: readonly Step[]) =>
    writer
      ? writer(projectId, steps).catch((err: unknown) => {
          if ((err as { unsent?: boolean }).unsent) return runFlush(sql, steps, copy);
          throw err;
        })
      : runFlush(sql, steps, copy);
  const journal = createFoldJournal(sql, opts.owner);
  const partitions = new Set<string>();
  const pendingPartitions = new Map<string, Promise<void>>();

  async function ensurePartition(at: Date): Promise<void> {
    const month = at.toISOString().slice(0, 7);
    if (partitions.has(month)) return;
    let p = pendingPartitions.get(month);
    if (!p) {
      p = query(sql, 'ensure_events_partition', [at])
        .then(() => void partitions.add(month))
        .finally(() => pendingPartitions.delete(month));
      pendingPartitions.set(month, p);
    }
    await p;
  }

  /** Writes the flush as if every event were new; when a key was stored already (a retried event), writes
   *  it again without the events whose keys are stored. Retries are rare: nearly every flush is one write. */
  async function write(projectId: string, events: EnrichedEvent[], after: Parameters<Commit>[2]): Promise<Committed> {
    let fresh = events;
    for (let attempt = 1; ; attempt++) {
      const inserted = new Set(fresh.map((e) => e.id));
      const { logs, counters } = after(inserted);
      const plan = flushPlan({
        projectId,
        owner: opts.owner,
        events: fresh,
        logs,
        counters,
        occurrenceRules: OCCURRENCE_RULES,
      });
      try {
        return { inserted, ...plan.read(await run(projectId, plan.steps)) };
      } catch (err) {
        const e = err as { code?: string; constraint_name?: string };
        if (e.code === 'P0002') throw notFound(`Project ${projectId} not found.`);
        // A key already stored fails the keys' insert (23505), or the COPY it aborted (25P02, see copyIn).
        const duplicate = (e.code === '23505' && e.constraint_name === 'ingest_dedup_pkey') || e.code === '25P02';
        if (!duplicate || attempt >= WRITES) throw err;
        const left = await unstored(sql, projectId, fresh);
        if (left.length === fresh.length) throw err; // no key was stored: the failure was another one
        fresh = left;
      }
    }
  }

  return {
    ensurePartition,
    recover: journal.recover,
    heartbeat: journal.heartbeat,
    checkpoint: (projectId, pending) => retryOnConflict(() => journal.checkpoint(projectId, pending)),
    liveState: (projectId, now) => liveState(sql, projectId, now),
    findSessions: (projectId, wanted) => findCoveringSessions(sql, projectId, wanted),
    async commit(projectId, events, after) {
      // Partition DDL runs before the transaction: inside it, PGlite would queue it behind ourselves.
      for (const month of new Set(events.map((e) => e.ts.slice(0, 7))))
        await ensurePartition(new Date(`${month}-01T00:00:00Z`));
      return retryOnConflict(() => write(projectId, events, after));
    },
  };
}

/** The events whose keys are not stored, each id once (its first event). */
async function unstored(sql: Sql, projectId: string, events: EnrichedEvent[]): Promise<EnrichedEvent[]> {
  const ids = events.map((e) => e.id);
  const stored = new Set(
    (await query<{ event_id: string }>(sql, 'list_stored_keys', [projectId, ids])).map((r) => r.event_id),
  );
  return events.filter((e) => !stored.has(e.id) && (stored.add(e.id), true));
}

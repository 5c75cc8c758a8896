// The actors' store: one group commit per flush, in a single transaction, as planned by flush-plan.ts:
// hold the project, store the events and their de-duplication keys, journal what they add to sessions and
// visitors and to the hourly ingest counters (applied at checkpoints, src/db/fold-journal.ts), mark their
// days for the rollups, add their speed samples and issues, append the log lines. The whole plan goes out
// before any answer (pipelined.ts). Monthly partitions are made ahead of use.
import type { Writable } from 'node:stream';
import type { ReservedSql, Sql } from 'postgres';
import type { ActorStore } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { decideTransition, type IssueStatus } from '../../actors/issue-lifecycle.machine.ts';
import { createFoldJournal, type FoldJournal } from './fold-journal.ts';
import { flushPlan, type Step } from './flush-plan.ts';
import { findCoveringSession, liveState } from './live-state.ts';
import { notFound } from '../errors.ts';
import { pipelinedTransaction } from './pipelined.ts';
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

/** `owner` names this process in the fold journal. `embedded`: PGlite, whose socket has no COPY FROM STDIN. */
export function createEventStore(sql: Sql, opts: { owner: string; embedded?: boolean }): EventStore {
  const copy = !opts.embedded;
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
        return { inserted, ...plan.read(await run(sql, plan.steps, copy)) };
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
    findSession: (projectId, visitor, at) => findCoveringSession(sql, projectId, visitor, at),
    async commit(projectId, events, after) {
      // Partition DDL runs before the transaction: inside it, PGlite would queue it behind ourselves.
      for (const month of new Set(events.map((e) => e.ts.slice(0, 7))))
        await ensurePartition(new Date(`${month}-01T00:00:00Z`));
      return retryOnConflict(() => write(projectId, events, after));
    },
  };
}

/** Runs a plan's steps in one transaction, each statement sent before any answer and COMMIT with the last;
 *  answers each step's rows. A failed step fails the transaction: nothing of it is kept. With `copy`
 *  (PostgreSQL) the events and their keys go by COPY FROM STDIN, the same text the statement takes (PGlite's
 *  socket has no COPY): COPY runs alone on a connection, so the steps before it go with BEGIN, and the
 *  steps after it with COMMIT. */
export function run(sql: Sql, steps: readonly Step[], copy: boolean): Promise<Rows[]> {
  return pipelinedTransaction(sql, async (tx, commit) => {
    // Ingest statements' plans never depend on their parameters: planned once per connection (reads are
    // planned for theirs, see client.ts).
    const generic = tx`set local plan_cache_mode = force_generic_plan`.execute();
    const send = (from: number, to?: number) =>
      Promise.all(steps.slice(from, to).map((s) => query<Record<string, unknown>>(tx, s.statement, s.params)));
    const at = copy ? steps.findIndex((s) => s.copy) : -1;
    let head: Promise<Rows[]> = Promise.resolve([]);
    if (at >= 0) {
      head = send(0, at);
      head.catch(() => {}); // awaited below
      const { keys, events } = steps[at]!.copy!;
      try {
        await copyIn(tx, KEYS_COPY, keys());
        await copyIn(tx, EVENTS_COPY, events);
      } catch (err) {
        await Promise.all([generic, head]); // a failed hold is the error to answer, not the COPY it aborted
        throw err;
      }
    }
    const tail = send(at + 1);
    const committed = commit();
    committed.catch(() => {}); // awaited below: a failed statement's own error is the one to answer
    const [, before, after] = await Promise.all([generic, head, tail]);
    await committed;
    return at >= 0 ? [...before, [], ...after] : after;
  });
}

type Rows = Record<string, unknown>[];

const KEYS_COPY = 'copy ingest_dedup (project_id, event_id, ts) from stdin';
/** insert_events.sql's columns, in the order of its text form. */
const EVENTS_COPY = `copy events (project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
  referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content, country,
  region, city, browser, browser_version, os, os_version, device, screen, viewport, language, connection,
  props, groups, user_id, release, environment, is_internal, is_localhost, bot_score, issue_id) from stdin`;

/** Sends `rows` (lines without the last line break) to a COPY FROM STDIN and waits for its answer.
 *  postgres.js settles nothing when a COPY fails after its data is all sent (porsager/postgres#1173: a key
 *  already stored, a value the column refuses): the stream neither finishes nor fails. So a statement is
 *  sent right behind the data, once the client has let go of the stream: it answers after the COPY, and
 *  fails with 25P02 (current transaction is aborted) when the COPY did. */
async function copyIn(tx: ReservedSql, statement: string, rows: string): Promise<void> {
  const writable = (await tx.unsafe(statement).writable()) as Writable & { _final: Writable['_final'] };
  const finished = new Promise<void>((resolve, reject) => {
    writable.once('error', reject);
    writable.once('finish', resolve);
  });
  finished.catch(() => {}); // awaited below
  const released = new Promise<void>((resolve) => {
    const final = writable._final;
    writable._final = (callback) => (final!.call(writable, callback), resolve());
  });
  writable.end(`${rows}\n`);
  await Promise.race([released, finished]);
  await Promise.all([finished, tx`select 1`.execute()]);
}

/** The events whose keys are not stored, each id once (its first event). */
async function unstored(sql: Sql, projectId: string, events: EnrichedEvent[]): Promise<EnrichedEvent[]> {
  const ids = events.map((e) => e.id);
  const stored = new Set(
    (await query<{ event_id: string }>(sql, 'list_stored_keys', [projectId, ids])).map((r) => r.event_id),
  );
  return events.filter((e) => !stored.has(e.id) && (stored.add(e.id), true));
}

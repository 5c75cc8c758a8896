// The actors' store: one group commit per flush, in a single transaction: claim the de-duplication keys,
// store the new events, add them to issues and speed samples, journal what they add to sessions and
// visitors and to the hourly ingest counters (applied at checkpoints, src/db/fold-journal.ts), append the
// log lines. Monthly partitions are made ahead of use.
// On PostgreSQL a flush goes first as one pipeline of the flush writer, as if every event were new
// (speculative-flush.ts); when a key was already stored it is written again the checked way below, which
// claims the keys before it stores anything (the only way on embedded PGlite).
import type { ReservedSql, Sql } from 'postgres';
import type { ActorStore, CounterDelta, PendingLog } from '../../actors/project-actor.ts';
import type { LogLine } from '../../actors/log-ring.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { decideTransition, type IssueStatus } from '../../actors/issue-lifecycle.machine.ts';
import { copyEvents, insertNewEvents } from './event-copy.ts';
import { createFoldJournal, journalRow, type CounterRow, type FoldJournal } from './fold-journal.ts';
import { issueDeltas } from '../../actors/issue-deltas.ts';
import { findCoveringSession, liveState } from './live-state.ts';
import { insertLogs } from './logs.ts';
import { notFound } from '../errors.ts';
import { pipelinedTransaction } from './pipelined.ts';
import { query } from './queries.ts';
import { retryOnConflict } from './retry.ts';
import { markRollupDaysStale, utcDays } from './rollup-marks.ts';
import { floatText, separatedText, textOrJson } from './separated-text.ts';
import { speculativeFlush, type FlushParts } from './speculative-flush.ts';
import type { WriterPool } from './wire/pool.ts';

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

/** On the checked way, a flush of this many events or more is COPYed (PostgreSQL); a smaller one is one statement. */
const COPY_FROM_ROWS = 100;

/** `owner` names this process in the fold journal. `writer`: the flush writer's connections (PostgreSQL),
 *  which send each flush as one pipeline. `embedded`: PGlite's socket has no COPY FROM STDIN, so events
 *  always go as one statement there. */
export function createEventStore(
  sql: Sql,
  opts: { owner: string; embedded?: boolean; writer?: WriterPool },
): EventStore {
  const canCopy = !opts.embedded;
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

  /** The flush as one pipeline, as if every event were new; null when one was not, or when the writer could
   *  not send it (nothing was kept either way). */
  async function speculative(
    writer: WriterPool,
    projectId: string,
    events: EnrichedEvent[],
    after: Parameters<Commit>[2],
  ): Promise<Committed | null> {
    const inserted = new Set(events.map((e) => e.id));
    const { logs, counters } = after(inserted);
    const flush = speculativeFlush({
      projectId,
      owner: opts.owner,
      events,
      logs,
      occurrenceRules: OCCURRENCE_RULES,
      ...flushParts(events, counters),
    });
    try {
      const answer = flush.read(await writer.run(projectId, flush.steps));
      return { inserted, ...answer };
    } catch (err) {
      const e = err as { code?: string; constraint?: string; unsent?: boolean };
      if (e.code === '23505' && e.constraint === 'ingest_dedup_pkey') return null; // a retried event: check the keys first
      if (e.unsent) return null; // the writer could not send it (no connection): nothing was written, the client can
      if (e.code === 'P0002') throw notFound(`Project ${projectId} not found.`);
      throw err;
    }
  }

  /** Claims the keys first, then stores only the new events and what follows from them. BEGIN goes out
   *  with the first statements and COMMIT with the last ones (pipelined.ts): a small flush is two round
   *  trips, a COPYed one four. */
  function checked(projectId: string, events: EnrichedEvent[], after: Parameters<Commit>[2]): Promise<Committed> {
    return pipelinedTransaction(sql, async (tx, commit) => {
      // Ingest statements' plans never depend on their parameters: planned once per connection (reads are
      // planned for theirs, see client.ts).
      const generic = tx`set local plan_cache_mode = force_generic_plan`.execute();
      const [, held, fresh] = await Promise.all([
        generic,
        query(tx, 'lock_project', [projectId]),
        events.length > 0 ? storeEvents(tx, projectId, events, canCopy && events.length >= COPY_FROM_ROWS) : [],
      ]);
      // Deleted while this flush waited: its statements ran for nothing, and the rollback takes them back.
      if (held.length === 0) throw notFound(`Project ${projectId} not found.`);
      const inserted = new Set(fresh.map((e) => e.id));
      const { logs, counters } = after(inserted);
      const parts = flushParts(fresh, counters);
      // Independent statements go out together, COMMIT right behind them; the issue upsert and then the log
      // lines are sent last, so the shared issue rows and the project's log lock are held for the shortest time.
      const [fold, , , , ids] = await Promise.all([
        parts.journal ? journal.write(tx, projectId, parts.journal) : null,
        // Days the new events fall in must be rebuilt before a rollup read uses them (src/query/rollup).
        markRollupDaysStale(tx, projectId, parts.days),
        parts.speed ? query(tx, 'insert_speed_samples', parts.speed) : null,
        parts.issues ? query(tx, 'upsert_issues', [projectId, parts.issues, OCCURRENCE_RULES]) : null,
        logs.length > 0 ? insertLogs(tx, projectId, logs) : [],
        commit(),
      ]);
      const stored: LogLine[] = logs.map((l, i) => ({ ...l, id: ids[i]!.id, ts: ids[i]!.ts.toISOString() }));
      return { inserted, logs: stored, fold };
    });
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
      const writer = opts.writer;
      const done = writer && (await retryOnConflict(() => speculative(writer, projectId, events, after)));
      return done || retryOnConflict(() => checked(projectId, events, after));
    },
  };
}

/** Claims the events' de-duplication keys and stores the events whose keys were new; answers those.
 *  Small flushes do both in one statement (one round trip); big ones claim the keys, then COPY, which
 *  runs alone on the connection (no other statement may be in flight while its data streams). Both
 *  statements answer only the duplicates (usually none): a big flush parses no rows to learn that all were new. */
async function storeEvents(
  tx: ReservedSql,
  projectId: string,
  events: EnrichedEvent[],
  copy: boolean,
): Promise<EnrichedEvent[]> {
  const duplicate = copy
    ? new Set(
        (
          await query<{ event_id: string }>(tx, 'insert_dedup_keys', [
            projectId,
            events.map((e) => e.id),
            events.map((e) => e.ts),
          ])
        ).map((r) => r.event_id),
      )
    : await insertNewEvents(tx, projectId, events);
  const fresh = duplicate.size === 0 ? events : events.filter((e) => !duplicate.has(e.id));
  if (copy && fresh.length > 0) await copyEvents(tx, fresh);
  return fresh;
}

/** What a flush writes beside its events, from the events it stores and its counts: the journal row (null
 *  when there are neither), the UTC days to mark for the rollups, and the speed and issue rows. One for both
 *  ways a flush is written. */
function flushParts(
  fresh: readonly EnrichedEvent[],
  counters: CounterDelta,
): Pick<FlushParts, 'journal' | 'days' | 'speed' | 'issues'> {
  const counted = countedRow(counters);
  return {
    journal: fresh.length > 0 || counted ? journalRow(fresh, counted) : null,
    days: fresh.length > 0 ? utcDays(fresh.map((e) => e.ts)) : [],
    speed: speedRows(fresh),
    issues: issuesJson(fresh),
  };
}

/** The flush's counts with their hour, or null when it counted nothing. */
function countedRow(c: CounterDelta): CounterRow | null {
  if (c.accepted + c.duplicates + c.rejected + c.rateLimited === 0) return null;
  return { ...c, hour: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString() };
}

/** insert_speed_samples.sql's two parameters: the Web Vitals of the new `speed` events as separated text, or
 *  as JSON when a value holds a separator (null: none). */
export function speedRows(fresh: readonly EnrichedEvent[]): [text: string | null, json: string | null] | null {
  const speed = fresh.filter((e) => e.name === 'speed');
  return speed.length === 0 ? null : textOrJson(speedLines(speed), () => speedJson(speed));
}

/** insert_speed_samples.sql's JSON form. */
export const speedJson = (speed: readonly EnrichedEvent[]): string =>
  JSON.stringify(
    speed.map((e) => ({
      project_id: e.project_id,
      ts: e.ts,
      id: e.id,
      visitor_id: e.visitor_id,
      path: e.path,
      route: e.route,
      device: e.device,
      country: e.country,
      environment: e.environment,
      lcp: e.lcp,
      inp: e.inp,
      cls: e.cls,
      fcp: e.fcp,
      ttfb: e.ttfb,
      element: e.element,
      bot_score: e.bot_score,
    })),
  );

/** insert_speed_samples.sql's text form: 16 fields a `speed` event, in the statement's order. */
export const speedLines = (speed: readonly EnrichedEvent[]): string | null =>
  separatedText(
    speed,
    16,
    (e, field) =>
      `${e.project_id}\x1f${e.ts}\x1f${e.id}\x1f${e.visitor_id}\x1f${field(e.path)}\x1f${field(e.route)}\x1f${field(e.device)}\x1f` +
      `${field(e.country)}\x1f${e.environment}\x1f${field(floatText(e.lcp))}\x1f${field(floatText(e.inp))}\x1f` +
      `${field(floatText(e.cls))}\x1f${field(floatText(e.fcp))}\x1f${field(floatText(e.ttfb))}\x1f${field(e.element)}\x1f${e.bot_score}`,
  );

/** upsert_issues.sql's rows: the new error events summed per issue, in key order (null: none). */
function issuesJson(fresh: readonly EnrichedEvent[]): string | null {
  const issues = issueDeltas(fresh);
  return issues.length === 0 ? null : JSON.stringify(issues);
}

export type { PendingLog };

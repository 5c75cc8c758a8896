// One project's live state and write queue: assigns sessions, keeps the realtime window and the log
// ring, and writes queued rows as group commits (one transaction per flush). An ingest call resolves
// only after its rows are committed. What the flushes add to sessions and visitors is merged here as
// each commits and applied at checkpoints (one row a session and visitor); settle() applies it now, for
// reads. It never imports a database client: the store is injected.
import { applyDwell, BOT_AT } from '../src/ingest/bot-score.ts';
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { ActorStore, CounterDelta, IngestMeta, IngestOutcome, PendingLog } from './actor-store.ts';
import { Checkpoints } from './checkpoints.ts';
import { LateLookups, type Batch } from './late-lookups.ts';
import { FlushOutcomes } from './flush-outcomes.ts';
import { LogRing, type LogLine } from './log-ring.ts';
import { RealtimeWindow } from './realtime-window.ts';
import { SESSION_GAP_MS, Sessionizer } from './sessionizer.ts';

export type { ActorStore, CounterDelta, IngestMeta, IngestOutcome, LiveState, PendingLog } from './actor-store.ts';

/** At most this many internal visitors are remembered (a team's browsers, not a site's audience), the most
 *  recently marked; the new events of one let go are stored as internal only with a member's cookie. */
export const MAX_INTERNAL_VISITORS = 10_000;

export type ActorOptions = {
  now?: () => number;
  maxRowsPerFlush?: number;
  /** Told of every committed log line (the app forwards them to other processes' subscribers). */
  onLogs?: (projectId: string, lines: LogLine[]) => void;
  /** Transactions in flight at once, so the database can use several cores (1 for embedded PGlite). */
  maxConcurrentFlushes?: number;
  /** How long deltas wait for a checkpoint: longer merges more flushes into one write per session. */
  checkpointMs?: number;
  /** Whether the actor reads back the project's live state as it starts (ActorStore.liveState): not for
   *  one kept only for its log ring. */
  restore?: boolean;
  /** How long ingest waits for that read before the actor goes on without it. */
  restoreTimeoutMs?: number;
  /** Sessions held at once, live and kept aside for late events (sessionizer.ts DEFAULT_MAX_SESSIONS). */
  maxSessions?: number;
  /** Told of a failed checkpoint (its deltas are kept and tried again), or of live state that could not be
   *  read back (restore: the actor goes on without it). */
  onError?: (err: unknown, during: 'checkpoint' | 'restore') => void;
};

export class ProjectActor {
  /** Live sessions and the realtime window: replaced when reload() reads them back. */
  sessions: Sessionizer;
  realtime = new RealtimeWindow();
  /** Visitors marked internal (by an admin, or by a member's session cookie on one of their events): their
   *  later events are internal too, as the visitor is. */
  private internalVisitors = new Set<string>();
  readonly logs = new LogRing();
  lastActivity: number;
  private queue: Batch[] = [];
  private looseLogs: PendingLog[] = [];
  private looseCounters: CounterDelta = { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 };
  /** Flushes in progress and the rows each writes; up to maxConcurrentFlushes run at once, so the database
   *  has the next flush in hand when one commits. */
  private readonly flushing = new Map<Promise<void>, number>();
  /** The events in `queue`. */
  private queuedRows = 0;
  private scheduled = false;
  /** Committed deltas not yet applied to sessions and visitors, merged in commit order. */
  private readonly checkpoints: Checkpoints;
  private readonly now: () => number;
  private readonly maxRowsPerFlush: number;
  private readonly onLogs: (projectId: string, lines: LogLine[]) => void;
  private readonly maxConcurrentFlushes: number;
  private readonly onError: (err: unknown, during: 'checkpoint' | 'restore') => void;
  /** Set while what was live is read back (ActorStore.liveState); ingest waits for it. */
  private restoring: Promise<void> | null = null;
  private readonly restoreTimeoutMs: number;
  private readonly maxSessions: number | undefined;
  /** Late events' stored sessions, looked up while later batches wait. */
  private readonly late: LateLookups;

  constructor(
    readonly projectId: string,
    private readonly store: ActorStore,
    opts: ActorOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.maxRowsPerFlush = opts.maxRowsPerFlush ?? 5_000;
    this.onLogs = opts.onLogs ?? (() => {});
    this.maxConcurrentFlushes = opts.maxConcurrentFlushes ?? 1;
    this.onError = opts.onError ?? (() => {});
    this.checkpoints = new Checkpoints(
      (folds) => store.checkpoint(projectId, folds),
      opts.checkpointMs ?? 5_000,
      (err) => this.onError(err, 'checkpoint'),
    );
    this.lastActivity = this.now();
    this.restoreTimeoutMs = opts.restoreTimeoutMs ?? 5_000;
    this.maxSessions = opts.maxSessions;
    this.sessions = this.newSessionizer();
    this.late = new LateLookups({
      place: (row, lookedUp) => this.place(row, lookedUp),
      adopt: (visitor, stored) => this.sessions.adopt(visitor, stored),
      wasLetGo: (visitor) => this.sessions.wasLetGo(visitor),
      clearLetGo: () => this.sessions.clearLetGo(),
      drain: () => this.drain(),
      find: (wanted) => this.store.findSessions!(this.projectId, wanted),
      enqueue: (rows, meta) => this.enqueue(rows, meta),
      restoring: () => this.restoring,
      ingest: (rows, meta) => this.ingest(rows, meta),
      onError: (err) => this.onError(err, 'restore'),
    });
    if (store.liveState && opts.restore !== false) this.restoring = this.restore(store.liveState);
  }

  /** Reads back what is live in the project now, in place of what this actor holds: for a process that
   *  takes over a project another process held (its sessions and realtime went on there), or an actor kept
   *  for its log ring that starts taking events. What it has queued is written first, and its deltas applied,
   *  so the read finds them; events that come meanwhile wait. */
  reload(): Promise<void> {
    const read = this.store.liveState;
    if (this.restoring || !read) return this.ready();
    this.restoring = this.drain().then(() => this.restore(read, { fresh: true }));
    return this.restoring;
  }

  /** Resolves once what was live before this actor started is back (its realtime window is then whole). */
  ready(): Promise<void> {
    return this.restoring ?? Promise.resolve();
  }

  /** Sessionizes and queues a validated, enriched batch; resolves once it is committed. */
  ingest(rows: EnrichedEvent[], meta: IngestMeta): Promise<IngestOutcome> {
    if (this.restoring) return this.restoring.then(() => this.ingest(rows, meta));
    this.lastActivity = this.now();
    return this.late.place(rows, meta);
  }

  private enqueue(rows: EnrichedEvent[], meta: IngestMeta): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, meta, resolve, reject });
      this.queuedRows += rows.length;
      this.schedule();
    });
  }

  /** Queues a log line that needs no acknowledgement (rate limiting, jobs, SDK reports). */
  log(line: PendingLog, counters: Partial<CounterDelta> = {}): void {
    this.looseLogs.push(line);
    for (const [k, n] of Object.entries(counters)) this.looseCounters[k as keyof CounterDelta] += n;
    this.schedule();
  }

  /** Writes everything queued and applies its deltas; resolves when nothing is left. A failed checkpoint
   *  is reported, not thrown: its journal rows are applied by the next start (see fold-journal.ts). */
  async flush(): Promise<void> {
    // Batches waiting for the live state to come back are queued first (they wait on it ahead of this).
    if (this.restoring) await this.restoring;
    while (this.late.running) await this.late.running.catch(() => {});
    await this.drain();
  }

  /** flush() but for the live state: what is queued and in flight is written, then its deltas applied. */
  private async drain(): Promise<void> {
    while (this.flushing.size > 0 || this.queue.length > 0 || this.looseLogs.length > 0) {
      if (this.flushing.size >= this.maxConcurrentFlushes || this.queue.length + this.looseLogs.length === 0) {
        await Promise.race(this.flushing.keys()).catch(() => {});
      } else {
        await this.startFlush();
      }
    }
    await this.settle().catch((err: unknown) => this.onError(err, 'checkpoint'));
  }

  /** Applies every delta committed so far to sessions and visitors: a read that follows sees them. */
  settle(): Promise<void> {
    return this.checkpoints.settle();
  }

  get idle(): boolean {
    return (
      this.restoring === null &&
      this.late.running === null &&
      this.flushing.size === 0 &&
      this.queue.length === 0 &&
      this.looseLogs.length === 0 &&
      this.logs.waiterCount === 0 &&
      this.checkpoints.idle
    );
  }

  /** Takes back what was live when this project's state was last held (before a restart). Without it (the
   *  read failed) visitors open new sessions and realtime starts empty: stored data is right either way. */
  private async restore(read: NonNullable<ActorStore['liveState']>, opts: { fresh?: boolean } = {}): Promise<void> {
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`live state not read back within ${this.restoreTimeoutMs} ms`)),
          this.restoreTimeoutMs,
        );
      });
      const {
        sessions,
        recent,
        internalVisitors = [],
      } = await Promise.race([read(this.projectId, this.now()), late]).finally(() => clearTimeout(timer));
      const now = this.now();
      if (opts.fresh)
        ((this.sessions = this.newSessionizer()),
          (this.realtime = new RealtimeWindow()),
          (this.internalVisitors = new Set()));
      this.sessions.restore(sessions, now);
      for (const r of recent) this.realtime.record(r);
      for (const visitor of internalVisitors) this.rememberInternal(visitor);
    } catch (err) {
      this.onError(err, 'restore');
    } finally {
      this.restoring = null;
    }
  }

  /** An admin marks a visitor internal or not: their later events follow, and an internal one leaves
   *  realtime at once. Resolves once what was placed before is written and applied, so the change to the
   *  stored events, sessions and visitor that follows (the route's) covers all of it: an event placed as
   *  internal just before an unmarking cannot mark the visitor again when it commits. */
  async markInternal(visitor: string, isInternal: boolean): Promise<void> {
    await this.ready();
    if (isInternal) {
      this.rememberInternal(visitor);
      this.realtime.forget(visitor);
    } else {
      this.internalVisitors.delete(visitor);
    }
    await this.flush();
  }

  /** Keeps the most recently marked: past the bound, the one marked longest ago is let go. */
  private rememberInternal(visitor: string): void {
    if (this.internalVisitors.delete(visitor) || this.internalVisitors.size < MAX_INTERNAL_VISITORS) {
      this.internalVisitors.add(visitor);
      return;
    }
    this.internalVisitors.delete(this.internalVisitors.values().next().value!);
    this.internalVisitors.add(visitor);
  }

  private newSessionizer(): Sessionizer {
    const sessions = new Sessionizer({ lookups: this.store.findSessions !== undefined, maxSessions: this.maxSessions });
    sessions.storedBefore(this.now());
    return sessions;
  }

  /** Gives the row its session; false when it is a late event whose session must be looked up first. */
  private place(row: EnrichedEvent, lookedUp = false): boolean {
    if (row.previous_visitor_id) this.keepSessionAcrossSalt(row, row.previous_visitor_id);
    if (row.is_internal) this.rememberInternal(row.visitor_id);
    else if (this.internalVisitors.size > 0 && this.internalVisitors.has(row.visitor_id)) row.is_internal = true;
    const ts = row.at;
    const timeMs = row.name === 'engagement' && typeof row.props.timeMs === 'number' ? row.props.timeMs : null;
    const placed = this.sessions.place(
      { visitor: row.visitor_id, ts, name: row.name, path: row.path, clientSession: row.client_session, timeMs },
      lookedUp,
    );
    if (placed === 'lookup') return false;
    row.session_id = typeof placed === 'object' ? placed.session.id : '';
    if (typeof placed === 'object') this.judgeDwell(row, placed.uniform);
    return true;
  }

  /** A daily salt rotated during this visitor's session: the session goes on under the id it began with
   *  (until a gap ends it; the next session takes the new id). */
  private keepSessionAcrossSalt(row: EnrichedEvent, previousId: string): void {
    if (this.sessions.get(row.visitor_id)) return;
    const before = this.sessions.get(previousId);
    if (before && row.at - before.lastActivity <= SESSION_GAP_MS) row.visitor_id = previousId;
  }

  /** The session's pageview rhythm completes the bot score enrichment began (uniform dwell times). */
  private judgeDwell(row: EnrichedEvent, uniform: boolean | null): void {
    const before = row.bot.score;
    applyDwell(row.bot, uniform);
    if (row.bot.score === before) return;
    row.bot_score = row.bot.score;
    // A bot's errors are stored but open no issue (error-issue.ts): crossing the line here takes it back.
    if (row.bot_score >= BOT_AT)
      row.issue_id = row.issue_title = row.issue_culprit = row.issue_type = row.issue_level = null;
  }

  /** Realtime counts only what was stored: a retried (duplicate) event is not seen twice. */
  private recordRealtime(row: EnrichedEvent): void {
    if (row.name === 'engagement') return;
    const human = row.bot_score < 50 && !row.is_internal && !row.is_localhost;
    this.realtime.record({
      visitor: row.visitor_id,
      ts: row.at,
      path: row.path,
      country: row.country,
      isPageview: row.name === 'pageview',
      human,
    });
  }

  private schedule(): void {
    if (this.scheduled || !this.worthStarting()) return;
    this.scheduled = true;
    // setImmediate gathers every request that arrived in the same turn into one commit.
    setImmediate(() => {
      this.scheduled = false;
      void this.startFlush();
    });
  }

  /** Whether a flush should start now rather than wait for more rows. With none in flight, at once. Beside
   *  one, once the queue holds half as many rows as the newest in flight (or it commits): the database is busy
   *  with that one meanwhile, so waiting costs nothing, while a flush started at once after a commit carried
   *  only the few requests that came back in between, paid a whole commit for them, and held the second place
   *  while the rest queued behind it. */
  private worthStarting(): boolean {
    if (this.flushing.size === 0) return true;
    if (this.flushing.size >= this.maxConcurrentFlushes) return false;
    let newest = 0;
    for (const rows of this.flushing.values()) newest = rows;
    return (this.queuedRows + this.looseLogs.length) * 2 >= newest;
  }

  private startFlush(): Promise<void> {
    if (this.flushing.size >= this.maxConcurrentFlushes) return Promise.race(this.flushing.keys());
    if (this.queue.length === 0 && this.looseLogs.length === 0) return Promise.resolve();
    const queued = this.queuedRows;
    const batch = this.take();
    const logs = this.looseLogs;
    const counters = this.looseCounters;
    this.looseLogs = [];
    this.looseCounters = { accepted: 0, duplicates: 0, rejected: 0, rateLimited: 0 };
    const flush: Promise<void> = this.write(batch, logs, counters).finally(() => {
      this.flushing.delete(flush);
      if (this.queue.length > 0 || this.looseLogs.length > 0) this.schedule();
    });
    this.flushing.set(flush, queued - this.queuedRows + logs.length); // take() counted the rows it took
    return flush;
  }

  private take(): Batch[] {
    const out: Batch[] = [];
    let rows = 0;
    while (this.queue.length > 0 && (out.length === 0 || rows + this.queue[0]!.rows.length <= this.maxRowsPerFlush)) {
      const w = this.queue.shift()!;
      rows += w.rows.length;
      this.queuedRows -= w.rows.length;
      out.push(w);
    }
    return out;
  }

  private async write(batch: Batch[], looseLogs: PendingLog[], looseCounters: CounterDelta): Promise<void> {
    const flush = new FlushOutcomes(batch, looseLogs, looseCounters);
    try {
      const { inserted, logs, fold } = await this.store.commit(this.projectId, flush.rows, (ids) => flush.settle(ids));
      // Held before anyone is answered, so a read that follows an answer finds these deltas to settle.
      if (fold) this.checkpoints.add(fold);
      for (const r of flush.stored(inserted)) this.recordRealtime(r);
      // Answered first: the ring's listeners and the other processes' copies come after the answers.
      for (const w of batch) w.resolve(flush.outcome(w));
      for (const line of logs) this.logs.append(line);
      if (logs.length > 0) this.onLogs(this.projectId, logs);
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}

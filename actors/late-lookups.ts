// Late events whose sessions a project actor no longer holds (the sessionizer answers 'lookup'): their
// stored sessions are asked of the store together, for every late event of the batches that arrive while
// one question is out, and the batches are then placed and queued in the order they came. A visitor's rows
// after one of its late events wait with it, so each visitor's events are still placed in order. The store
// is asked once it holds every session those events may belong to: any session stored before the actor
// began or written since, which is all of them unless the sessionizer let one of those visitors' sessions
// go since the last drain (its events may still be queued or in flight: the lookup drains first).
// Asked once a late event, each behind a drain of the write queue, the lookups held back every batch
// behind them: at 20 late events a second beside dashboard reads, ingest waited seconds
// (docs/data-safety.md, benchmarks.md).
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { IngestMeta, IngestOutcome } from './actor-store.ts';
import type { StoredSpan } from './sessionizer.ts';

export type Batch = {
  rows: EnrichedEvent[];
  meta: IngestMeta;
  resolve: (o: IngestOutcome) => void;
  reject: (e: unknown) => void;
};

/** A batch placed but for the rows at `deferred`, which wait for their sessions to be looked up. */
type Deferred = Batch & { deferred: number[] };

/** What the lookups need of their actor. */
export type LateHost = {
  /** Gives the row its session; false when it is a late event whose session must be looked up first. */
  place: (row: EnrichedEvent, lookedUp?: boolean) => boolean;
  /** Holds a stored session found for a late event, before it is placed again. */
  adopt: (visitor: string, stored: StoredSpan) => void;
  /** Sessionizer.wasLetGo and clearLetGo: whose sessions were let go since the last drain for a lookup. */
  wasLetGo: (visitor: string) => boolean;
  clearLetGo: () => void;
  /** Writes what is queued and in flight, and applies its deltas. */
  drain: () => Promise<void>;
  /** ActorStore.findSessions. */
  find: (wanted: { visitor: string; at: number }[]) => Promise<(StoredSpan | null)[]>;
  /** Queues a placed batch; resolves once it is committed. */
  enqueue: (rows: EnrichedEvent[], meta: IngestMeta) => Promise<IngestOutcome>;
  /** Set while the actor reads its live state back (reload), which replaces the sessions: a batch that waited
   *  here is then handed back to the actor's ingest, which waits for it. */
  restoring: () => Promise<void> | null;
  ingest: (rows: EnrichedEvent[], meta: IngestMeta) => Promise<IngestOutcome>;
  /** Told of a lookup that failed: its events go on as if nothing were stored. */
  onError: (err: unknown) => void;
};

/** Lookups of one group at most: each round after the first follows a session let go by the one before. */
const MAX_ROUNDS = 4;

export class LateLookups {
  /** Set while late events wait for the store; batches that arrive meanwhile wait in `behind`, in order. */
  running: Promise<void> | null = null;
  private behind: Batch[] = [];

  constructor(private readonly host: LateHost) {}

  /** Places and queues a batch, or has it wait for a lookup (its own late events', or one under way);
   *  resolves once it is committed. */
  place(rows: EnrichedEvent[], meta: IngestMeta): Promise<IngestOutcome> {
    if (this.running) return new Promise((resolve, reject) => this.behind.push({ rows, meta, resolve, reject }));
    const waiting = new Set<string>();
    const deferred = this.placeAll(rows, waiting);
    if (deferred.length === 0) return this.host.enqueue(rows, meta);
    return new Promise((resolve, reject) => {
      this.running = this.lookUp([{ rows, meta, resolve, reject, deferred }], waiting);
    });
  }

  /** Places a batch's rows in order, but for late events and every later row of their visitors (`waiting`,
   *  which this adds to): answers those rows' positions. */
  private placeAll(rows: EnrichedEvent[], waiting: Set<string>): number[] {
    const deferred: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (!waiting.has(row.visitor_id) && this.host.place(row)) continue;
      waiting.add(row.visitor_id);
      deferred.push(i);
    }
    return deferred;
  }

  /** Looks a group's late events up, places them and queues the group's batches; then places the batches
   *  that came meanwhile, whose late events make the next group, until none has one. */
  private async lookUp(group: Deferred[], waiting: Set<string>): Promise<void> {
    try {
      while (group.length > 0) {
        let late = group.flatMap((b) => b.deferred.map((i) => b.rows[i]!));
        for (let round = 1; late.length > 0; round++) late = await this.settle(late, round);
        for (const b of group) this.host.enqueue(b.rows, b.meta).then(b.resolve, b.reject);
        group = [];
        waiting.clear();
        for (const b of this.behind.splice(0)) {
          const restoring = this.host.restoring();
          if (restoring) {
            restoring.then(() => this.host.ingest(b.rows, b.meta)).then(b.resolve, b.reject);
            continue;
          }
          const deferred = this.placeAll(b.rows, waiting);
          if (deferred.length === 0) this.host.enqueue(b.rows, b.meta).then(b.resolve, b.reject);
          else group.push({ ...b, deferred });
        }
      }
    } catch (err) {
      for (const b of [...group, ...this.behind.splice(0)]) b.reject(err);
    } finally {
      this.running = null;
    }
  }

  /** Looks the rows up and places them in order; answers those that must be looked up again. Placing a
   *  group's rows can let a session go (a late event's stored session, taken up, pushes the oldest kept
   *  aside out) that a later row of the group belongs to and that the store did not hold when asked: that
   *  row and its visitor's later ones are asked again, after a drain, up to MAX_ROUNDS (after which a row
   *  opens a session of its own: the bound of data-safety.md, a session split in two). */
  private async settle(late: EnrichedEvent[], round: number): Promise<EnrichedEvent[]> {
    if (this.mayBeUnwritten(late)) await this.host.drain();
    const found = await this.host.find(late.map((r) => ({ visitor: r.visitor_id, at: r.at }))).catch((err) => {
      this.host.onError(err);
      return late.map(() => null);
    });
    const again: EnrichedEvent[] = [];
    const held = new Set<string>();
    late.forEach((row, k) => {
      if (held.has(row.visitor_id)) return void again.push(row);
      // An earlier late event of the visitor may have taken the session this one belongs to.
      if (this.host.place(row)) return;
      // None of these visitors had a session let go when the store was asked (or the drain wrote it).
      if (round < MAX_ROUNDS && this.host.wasLetGo(row.visitor_id)) {
        held.add(row.visitor_id);
        return void again.push(row);
      }
      const stored = found[k];
      if (stored) this.host.adopt(row.visitor_id, stored);
      this.host.place(row, true);
    });
    return again;
  }

  /** Whether a late event's visitor had a session let go since the last drain for a lookup; if so, the
   *  drain that follows writes every session let go before now, and the list starts over. */
  private mayBeUnwritten(late: EnrichedEvent[]): boolean {
    if (!late.some((r) => this.host.wasLetGo(r.visitor_id))) return false;
    this.host.clearLetGo();
    return true;
  }
}

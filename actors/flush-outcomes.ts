// One flush's requests against what its transaction inserted: the rows it writes (an id twice in the flush,
// a retry racing its original, is written once), each request's answer (accepted or duplicates), and the
// log lines and counters written in the same transaction.
import type { EnrichedEvent } from '../src/ingest/enrich.ts';
import type { CounterDelta, IngestMeta, IngestOutcome, PendingLog } from './actor-store.ts';
import { batchLines } from './batch-lines.ts';

type Request = { rows: EnrichedEvent[]; meta: IngestMeta };

export class FlushOutcomes<R extends Request> {
  /** The rows to insert, each id once (the first request's). */
  readonly rows: EnrichedEvent[] = [];
  private readonly sent: number;
  private readonly outcomes = new Map<R, IngestOutcome>();

  constructor(
    private readonly batch: readonly R[],
    private readonly looseLogs: PendingLog[],
    private readonly looseCounters: CounterDelta,
  ) {
    const seen = new Set<string>();
    let sent = 0;
    for (const w of batch) {
      sent += w.rows.length;
      for (const r of w.rows) if (addNew(seen, r.id)) this.rows.push(r);
    }
    this.sent = sent;
  }

  /** Inside the transaction, from the ids it inserted: the lines and counters it writes too. */
  settle(inserted: ReadonlySet<string>): { logs: PendingLog[]; counters: CounterDelta } {
    const lines = [...this.looseLogs];
    const counters = { ...this.looseCounters };
    const all = this.everyOne(inserted);
    const claimed = new Set<string>();
    for (const w of this.batch) {
      // The ids this request stored: an id in two requests of the flush (a retry racing its original) is
      // the first one's. Null when it stored every one of its events.
      let own: Set<string> | null = null;
      if (!all) {
        own = new Set();
        for (const r of w.rows) if (inserted.has(r.id) && addNew(claimed, r.id)) own.add(r.id);
      }
      const accepted = own ? own.size : w.rows.length;
      const duplicates = w.rows.length - accepted;
      this.outcomes.set(w, { accepted, duplicates });
      counters.accepted += accepted;
      counters.duplicates += duplicates;
      counters.rejected += w.meta.rejected;
      lines.push(...w.meta.rejectionLogs, ...batchLines(w, accepted, duplicates, duplicates > 0 ? own : null));
    }
    return { logs: lines, counters };
  }

  /** The request's answer (after settle). */
  outcome(w: R): IngestOutcome {
    return this.outcomes.get(w)!;
  }

  /** The rows the transaction stored (new ones). */
  stored(inserted: ReadonlySet<string>): EnrichedEvent[] {
    return this.everyOne(inserted) ? this.rows : this.rows.filter((r) => inserted.has(r.id));
  }

  /** Usually every event of the flush is new and none came twice: then no id needs looking up. */
  private everyOne(inserted: ReadonlySet<string>): boolean {
    return inserted.size === this.sent;
  }
}

/** Adds `x` to `set`; answers whether it was not there yet (one lookup, where has() then add() are two). */
const addNew = (set: Set<string>, x: string): boolean => set.size < set.add(x).size;

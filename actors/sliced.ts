// Work over many subscribers, done a slice at a time: a few milliseconds of it, then the event loop turns
// (setImmediate), so an ingest request that arrived meanwhile is read, committed and answered between two
// slices instead of waiting behind a fan-out to 10,000 sockets. Jobs run in the order they were queued,
// each item once, so a subscriber still gets its lines in order.

/** How long one slice may run before the loop gets a turn. */
export const SLICE_MS = 4;
/** A subscriber gets at most one write a tick, holding every line since its last: a write's fixed cost
 *  (the call into uWS, the send(2)) dominates a small line's, so at a batch every 100 ms a tick of 250 ms
 *  writes each socket 4 times a second instead of 10. The first line after a quiet tick goes at once. */
export const DELIVERY_TICK_MS = 250;
/** Items a slice does whatever the clock says: on a machine short of CPU, a slice cut short by the thread
 *  waiting for a core would otherwise do a handful of items a turn, and the turns' own cost would grow. */
const AT_LEAST = 256;
/** Items between two looks at the clock after that. */
const CHECK_EVERY = 32;
/** While a client waits on urgent work (an ingest request between its arrival and its answer), the next
 *  slice waits for it, but never longer than this after the last slice: the answer's own steps (the
 *  actor, the flush, the commit's round trip) each need a turn of the loop, and a slice before each would
 *  add up. */
const YIELD_MAX_MS = 20;

let urgent = 0;

/** Marks urgent work under way (see YIELD_MAX_MS); call the answer once it is done. */
export function beginUrgent(): () => void {
  urgent++;
  let done = false;
  return () => {
    if (!done) ((done = true), urgent--);
  };
}

type Job<T> = { items: readonly T[]; next: number; each: (item: T) => void };

export class Sliced {
  private readonly jobs: Job<never>[] = [];
  private scheduled = false;
  private waiting: (() => void)[] = [];
  /** When the last slice ended, or the queue was last found empty. */
  private ranAt = 0;

  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  /** `each` is called for every item, later: a slice at a time, after every job queued before this one. */
  push<T>(items: readonly T[], each: (item: T) => void): void {
    if (items.length === 0) return;
    if (this.jobs.length === 0) this.ranAt = performance.now();
    this.jobs.push({ items, next: 0, each } as unknown as Job<never>);
    this.schedule();
  }

  get pending(): number {
    return this.jobs.length;
  }

  /** Resolves once nothing is queued. A producer waits for it before queuing more, so that lines which
   *  came meanwhile go out together, one write a subscriber, rather than one job each behind a backlog. */
  drained(): Promise<void> {
    if (this.jobs.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Drops what is still queued (shutdown: the subscribers are ended instead). */
  clear(): void {
    this.jobs.length = 0;
    this.wakeWaiting();
  }

  private wakeWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  private schedule(afterMs = 0): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (afterMs > 0) setTimeout(this.run, afterMs);
    else setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const now = performance.now();
    if (urgent > 0 && now - this.ranAt < YIELD_MAX_MS && this.jobs.length > 0) return this.schedule(1);
    const until = now + SLICE_MS;
    let n = 0;
    while (this.jobs.length > 0) {
      const job = this.jobs[0]!;
      while (job.next < job.items.length) {
        const item = job.items[job.next++]!;
        try {
          job.each(item);
        } catch (err) {
          this.onError(err);
        }
        if (++n >= AT_LEAST && n % CHECK_EVERY === 0 && performance.now() > until) {
          this.ranAt = performance.now();
          return this.schedule();
        }
      }
      this.jobs.shift();
    }
    this.wakeWaiting();
  };
}

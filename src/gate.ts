// A limited pool of slots with a bounded queue, for heavy reads (exports, long ranges; see
// src/routes/heavy-reads.ts): however many arrive, they leave database connections and CPU to ingest,
// /v2/health and ordinary reads. Past the slots they wait; past the queue or the wait, 503 with Retry-After.
import { HttpError } from './errors.ts';

export type Gate = {
  /** Waits for a slot; answers its release (safe to call twice). Throws a 503 when the queue is full, the
   *  wait is too long, or the client left while waiting. */
  enter: (signal: AbortSignal) => Promise<() => void>;
  readonly active: number;
  readonly waiting: number;
};

export function createGate(opts: { slots: number; queue: number; waitMs: number }): Gate {
  let active = 0;
  const queue: { grant: () => void }[] = [];
  const busy = () =>
    new HttpError('UNAVAILABLE', 'Too many exports and long-range reads at once; retry in a moment.', [], {
      'Retry-After': '5',
    });

  function release(): void {
    const next = queue.shift();
    if (next) next.grant();
    else active--;
  }
  function slot(): () => void {
    let done = false;
    return () => void (done || ((done = true), release()));
  }

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    enter(signal) {
      if (active < opts.slots) return (active++, Promise.resolve(slot()));
      if (queue.length >= opts.queue) return Promise.reject(busy());
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', leave);
            resolve(slot()); // the slot passes straight from the releaser: `active` stays as it was
          },
        };
        const leave = () => {
          clearTimeout(timer);
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(busy());
        };
        const timer = setTimeout(leave, opts.waitMs);
        signal.addEventListener('abort', leave, { once: true });
        queue.push(waiter);
      });
    },
  };
}

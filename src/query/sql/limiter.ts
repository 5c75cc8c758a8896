// How many SQL-route queries run at once in this process, and how many may wait: a burst of heavy
// queries queues here instead of taking every database connection (or, embedded, the one session).
import { HttpError } from '../../errors.ts';

export type Limiter = { acquire: () => Promise<() => void> };

/** `rest`: after a query held its slot for some milliseconds, how long the slot stays free before the next
 *  waiting query takes it. The embedded database is one session: without a rest, each step of an ingest
 *  request could queue behind a new query, and a burst of queries would starve ingest. */
export function createLimiter(running: number, waiting: number, rest: (heldMs: number) => number = () => 0): Limiter {
  let active = 0;
  const queue: (() => void)[] = [];
  const release = (heldMs: number) => {
    const pause = rest(heldMs);
    const next = () => {
      const waiter = queue.shift();
      if (waiter) waiter();
      else active--;
    };
    if (pause > 0) setTimeout(next, pause).unref();
    else next();
  };
  return {
    async acquire() {
      if (active < running) {
        active++;
      } else {
        if (queue.length >= waiting)
          throw new HttpError('RATE_LIMITED', 'Too many SQL queries are running; retry in a few seconds.', [], {
            'Retry-After': '5',
          });
        await new Promise<void>((resolve) => queue.push(resolve));
      }
      const started = performance.now();
      let released = false;
      return () => {
        if (!released) release(performance.now() - started);
        released = true;
      };
    },
  };
}

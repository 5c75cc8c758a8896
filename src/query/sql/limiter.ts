// How many SQL-route queries run at once in this process, and how many may wait: a burst of heavy
// queries queues here instead of taking every database connection (or, embedded, the one session).
import { HttpError } from '../../errors.ts';

export type Limiter = { acquire: () => Promise<() => void> };

export function createLimiter(running: number, waiting: number): Limiter {
  let active = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
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
      let released = false;
      return () => {
        if (!released) release();
        released = true;
      };
    },
  };
}

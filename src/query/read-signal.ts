// The signal of the read being answered, carried through its async calls: a read whose client left stops
// between its steps (rollup builds run a week at a time, a statement each) instead of working on for
// nobody; the statement timeout bounds the one it is in. Set by the route pipeline around each handler.
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` as the read of `signal`. */
export const withReadSignal = <T>(signal: AbortSignal, fn: () => T): T => current.run(signal, fn);

/** Thrown when the client of the read has left: nobody gets the answer, so the read stops. */
export class ReadAbandoned extends Error {
  constructor() {
    super('the client left; the read stopped');
    this.name = 'ReadAbandoned';
  }
}

/** Throws ReadAbandoned when the current read's client has left. */
export function stopIfLeft(): void {
  if (current.getStore()?.aborted) throw new ReadAbandoned();
}

// Background work done in passes (the rollup builder, the embedded database's upkeep): a pass starts
// `everyMs` after the last one ended, so a slow pass delays the next rather than overlapping it, and the
// timer never keeps the process alive.

/** Runs `pass` every `everyMs` after the last one ended until stopped; answers a stop that waits for the
 *  pass under way. `pass` handles its own errors. */
export function repeatPasses(everyMs: number, pass: () => Promise<void>): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().then(schedule);
    }, everyMs);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}

// What a project's committed flushes add to sessions, visitors and counters, held and merged in commit
// order until a checkpoint applies it (one row a session and visitor however many flushes touched it). A
// checkpoint runs `delayMs` after the first delta it finds, or now for settle() (a read that must see the
// deltas); one at a time. A failed one keeps its deltas, ahead of those that came since, for the next.
import { PendingFolds, type FoldEntry } from './flush-rows.ts';

export class Checkpoints {
  private folds = new PendingFolds();
  private running: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly apply: (folds: PendingFolds) => Promise<void>,
    private readonly delayMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** One committed flush's deltas. */
  add(fold: FoldEntry): void {
    this.folds.add(fold);
    this.schedule();
  }

  /** Nothing held and no checkpoint running. */
  get idle(): boolean {
    return this.folds.size === 0 && this.running === null;
  }

  /** Applies every delta committed so far: a read that follows sees them. */
  async settle(): Promise<void> {
    if (this.running) await this.running.catch(() => {});
    // A checkpoint started meanwhile took every delta committed before it: waiting for it is enough.
    if (this.folds.size > 0 || this.running) await (this.running ?? this.run());
  }

  private run(): Promise<void> {
    if (this.timer) (clearTimeout(this.timer), (this.timer = null));
    const folds = this.folds;
    this.folds = new PendingFolds();
    const run: Promise<void> = this.apply(folds)
      .catch((err: unknown) => {
        folds.append(this.folds); // kept, ahead of what came since, for the next try
        this.folds = folds;
        throw err;
      })
      .finally(() => {
        this.running = null;
        if (this.folds.size > 0) this.schedule();
      });
    this.running = run;
    return run;
  }

  private schedule(): void {
    if (this.timer || this.running) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running && this.folds.size > 0) this.run().catch(this.onError);
    }, this.delayMs);
    this.timer.unref?.();
  }
}

// The last N log lines of one project, in id order, with filters, long-poll waits and push listeners.
// Ids come from the database (the caller appends whole lines); the ring never reads the clock and
// leaves no timer or abort listener behind on any path.
export type LogLevel = 'info' | 'ok' | 'warn' | 'error';
export type LogKind = 'ingest' | 'transport' | 'pipeline' | 'signals' | 'jobs' | 'auth';
export type LogSource = 'api' | 'sdk' | 'engine' | 'cron';

export type LogLine = {
  id: string; // numeric text, increasing
  ts: string;
  level: LogLevel;
  kind: LogKind;
  source: LogSource;
  message: string;
  data: Record<string, unknown>;
  visitor: string | null;
  session: string | null;
};

export type LogFilter = { level?: LogLevel; kind?: LogKind; source?: LogSource; visitor?: string; q?: string };
export type LogListener = (line: LogLine) => void;

export const DEFAULT_CAPACITY = 1000;
export const DEFAULT_PAGE = 100;

type Entry = { key: bigint; line: LogLine };
type Waiter = { afterKey: bigint; filter: LogFilter; limit: number; finish: (lines: LogLine[]) => void };

export class LogRing {
  private readonly entries: Entry[] = []; // ascending by key
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<LogListener>();
  private readonly capacity: number;
  private readonly onListenerError: (err: unknown) => void;
  // Every line with an id above floor that was appended is still held (see covers()).
  private floor: bigint;
  // Whether floor means something: given by the caller (lines at or below it were committed before the ring
  // began), or raised by dropping the oldest line. A ring made after lines were committed, told no floor,
  // does not hold them.
  private floorKnown: boolean;

  constructor(options: { capacity?: number; floor?: bigint; onListenerError?: (err: unknown) => void } = {}) {
    this.capacity = Math.max(1, options.capacity ?? DEFAULT_CAPACITY);
    this.floor = options.floor ?? 0n;
    this.floorKnown = options.floor !== undefined;
    this.onListenerError = options.onListenerError ?? (() => {});
  }

  get size() {
    return this.entries.length;
  }
  get waiterCount() {
    return this.waiters.size;
  }
  get listenerCount() {
    return this.listeners.size;
  }
  get lastId(): bigint | null {
    return this.entries.at(-1)?.key ?? null;
  }

  // True when the ring alone can answer "lines after afterId": it holds a line at or below the cursor (or
  // the cursor is at or above its known floor), so nothing after the cursor predates the ring or was
  // dropped; otherwise the caller reads the database.
  covers(afterId: bigint): boolean {
    if (this.floorKnown && afterId >= this.floor) return true;
    const oldest = this.entries[0];
    return oldest !== undefined && oldest.key <= afterId;
  }

  // Returns false for a duplicate id or a line older than everything the ring may still hold.
  append(line: LogLine): boolean {
    const key = BigInt(line.id);
    if (key <= this.floor && this.entries.length >= this.capacity) return false;
    const at = this.insertionPoint(key);
    if (this.entries[at - 1]?.key === key) return false;
    this.entries.splice(at, 0, { key, line });
    if (this.entries.length > this.capacity) {
      this.floor = this.entries.shift()!.key;
      this.floorKnown = true;
    }
    for (const waiter of this.waiters) {
      if (key > waiter.afterKey && matches(line, waiter.filter))
        waiter.finish(this.since(waiter.afterKey, waiter.filter, waiter.limit));
    }
    for (const listener of this.listeners) {
      try {
        listener(line);
      } catch (err) {
        this.listeners.delete(listener);
        this.onListenerError(err);
      }
    }
    return true;
  }

  // Lowers a known floor to `floor`, taking `lines`: the committed lines after `floor` read in one go, in
  // id order, reaching the old floor (or `all` of them), so cursors in that gap are covered from now on.
  // Tells no listener or waiter (nothing new). The ring may then hold up to twice its capacity (it drops
  // one line, the oldest, for each new one while over). False, changing nothing, when the floor is not
  // known, the lines do not reach it, or they would not fit.
  backfill(floor: bigint, lines: readonly LogLine[], all: boolean): boolean {
    if (!this.floorKnown) return false;
    if (floor >= this.floor) return true;
    const last = lines.at(-1);
    if (!all && (!last || BigInt(last.id) < this.floor)) return false;
    const older = lines.filter((l) => BigInt(l.id) > floor && BigInt(l.id) <= this.floor);
    if (this.entries.length + older.length > 2 * this.capacity) return false;
    this.entries.unshift(...older.map((line) => ({ key: BigInt(line.id), line })));
    this.floor = floor;
    return true;
  }

  // Matching lines with an id above afterId (all held lines when null), oldest first.
  since(afterId: bigint | null, filter: LogFilter = {}, limit = DEFAULT_PAGE): LogLine[] {
    const out: LogLine[] = [];
    for (
      let i = afterId === null ? 0 : this.insertionPoint(afterId);
      i < this.entries.length && out.length < limit;
      i++
    ) {
      if (matches(this.entries[i].line, filter)) out.push(this.entries[i].line);
    }
    return out;
  }

  // The newest `limit` matching lines, oldest first (so the last one's id is the next cursor).
  latest(filter: LogFilter = {}, limit = DEFAULT_PAGE): LogLine[] {
    const out: LogLine[] = [];
    for (let i = this.entries.length - 1; i >= 0 && out.length < limit; i--) {
      if (matches(this.entries[i].line, filter)) out.push(this.entries[i].line);
    }
    return out.reverse();
  }

  // The newest `limit` matching lines when the ring surely holds them (null: an older matching line may
  // exist that it does not hold). Sure when it holds `limit` of them, or nothing was committed before it
  // (known floor 0); a ring appended out of id order (the actor's) cannot say, so only an ordered one asks.
  newest(filter: LogFilter, limit: number): LogLine[] | null {
    const found = this.latest(filter, limit);
    return found.length === limit || (this.floorKnown && this.floor === 0n) ? found : null;
  }

  matches(line: LogLine, filter: LogFilter): boolean {
    return matches(line, filter);
  }

  // Long poll: resolves with matching lines newer than afterId (null: newer than now) as soon as one
  // exists, with [] after timeoutMs, or with [] on abort. One finish() cleans up every path.
  waitFor(
    afterId: bigint | null,
    filter: LogFilter,
    timeoutMs: number,
    signal?: AbortSignal,
    limit = DEFAULT_PAGE,
  ): Promise<LogLine[]> {
    const afterKey = afterId ?? this.lastId ?? this.floor;
    const ready = this.since(afterKey, filter, limit);
    if (ready.length > 0 || signal?.aborted) return Promise.resolve(ready);
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Safe to call twice: only the call that removes the waiter resolves and cleans up.
      const finish = (lines: LogLine[]) => {
        if (!this.waiters.delete(waiter)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(lines);
      };
      const onAbort = () => finish([]);
      const waiter: Waiter = { afterKey, filter, limit, finish };
      this.waiters.add(waiter);
      timer = setTimeout(onAbort, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  // Shutdown: every pending wait resolves with [] and push listeners are dropped.
  close(): void {
    for (const waiter of this.waiters) waiter.finish([]);
    this.listeners.clear();
  }

  // Push consumers (SSE, WebSocket): called once per appended line. A listener that throws is dropped.
  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  // First index whose key is greater than `key`.
  private insertionPoint(key: bigint): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].key <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export function matches(line: LogLine, filter: LogFilter): boolean {
  if (filter.level !== undefined && line.level !== filter.level) return false;
  if (filter.kind !== undefined && line.kind !== filter.kind) return false;
  if (filter.source !== undefined && line.source !== filter.source) return false;
  if (filter.visitor !== undefined && line.visitor !== filter.visitor) return false;
  if (filter.q !== undefined && !line.message.toLowerCase().includes(filter.q.toLowerCase())) return false;
  return true;
}

// One project's log stream for every SSE and long-poll subscriber of this process. The actor's ring only
// wakes it; one database read per wake, shared by every subscriber, says which lines are committed and in
// what order (a job's line, or one another process forwards, can reach the ring after a larger id), and
// the lines it read stay here in memory for whoever asks next. Subscribers are grouped by filter, so a line
// is matched once a filter and framed once, never read or formatted once a subscriber.
import { LogRing, matches, type LogFilter, type LogLine } from '../../actors/log-ring.ts';
import { SSE_HEARTBEAT, sseEvent, sseRetry } from '../http/sse-format.ts';
import { DELIVERY_TICK_MS, Sliced } from '../../actors/sliced.ts';

/** Lines of the project matching `filter` after `after` (the newest `limit` when null), oldest first. */
export type LogReader = (filter: LogFilter, after: bigint | null, limit: number) => Promise<LogLine[]>;
export type StreamSink = { write: (text: string | Uint8Array) => boolean; end: () => void };

export const PAGE = 100;
export const READ_PAGE = 1_000;
export const FEED_LINES = 1_000;
const RETRY_MS = 2_000;

/** `skipTo`: a cursor past every line read so far (a client's Last-Event-ID from elsewhere): lines up to
 *  it are not sent. `quiet`: nothing written since the last heartbeat. */
type Stream = { sink: StreamSink; skipTo: bigint | null; quiet: boolean };
type Group = { filter: LogFilter; streams: Set<Stream> };
/** null: the feed moved past `after` without holding what follows it (look again, from the database). */
type Waiter = { after: bigint; filter: LogFilter; key: string; finish: (lines: LogLine[] | null) => void };

export const filterKey = (f: LogFilter): string => JSON.stringify([f.level, f.kind, f.source, f.visitor, f.q]);

export class ProjectFeed {
  /** What the reads found, in id order: every committed line with an id above its floor up to `cursor`. */
  private lines!: LogRing;
  private cursor = 0n;
  private readonly groups = new Map<string, Group>();
  private readonly waiters = new Set<Waiter>();
  private readonly frames = new WeakMap<LogLine, string>();
  /** The newest page from memory by filter, while the cursor stays where it was: streams that open
   *  together (a crowd reconnecting) share one page, framed and encoded once (`pages`). */
  private newestPages = new Map<string, { cursor: bigint; lines: LogLine[] | null }>();
  private readonly pages = new WeakMap<LogLine[], Buffer>();
  /** Subscribers still catching up (not in a group yet) and long-polls under way: the feed is not idle. */
  private busy = 0;
  private reading = false;
  private again = false;
  private closed = false;
  /** A read of a gap below the floor under way: from which cursor, and whether the feed then holds it. */
  private filling: [bigint, Promise<boolean>] | null = null;
  /** When the last fan-out began: the next one waits until a tick after it. */
  private lastFanOut = -Infinity;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly out: Sliced;
  readonly ready: Promise<void>;

  constructor(
    private readonly read: LogReader,
    private readonly opts: {
      heartbeatMs: number;
      /** At most one fan-out (one write a stream, one answer to the long-polls) a tick. */
      tickMs?: number;
      /** Nobody subscribes any more: the owner forgets this feed. */
      onIdle: () => void;
      onError: (err: unknown) => void;
    },
  ) {
    this.out = new Sliced(opts.onError);
    // The newest lines committed now, held from the start: a crowd of streams opening at once (after a
    // restart, say) gets its first page from here, not from a read each. Every line above them reaches the
    // ring after this (the owner subscribed).
    this.ready = this.read({}, null, FEED_LINES).then(
      (newest) => this.begin(newest),
      (err: unknown) => (this.opts.onError(err), this.begin([])),
    );
  }

  get subscribers(): number {
    let n = this.waiters.size;
    for (const g of this.groups.values()) n += g.streams.size;
    return n;
  }

  /** The ring got a line: read what was committed since the last read (one read at a time; a wake during
   *  one reads again after it). Deferred, so the ingest answer that appended the line goes out first. */
  readonly wake = (): void => {
    if (this.closed) return;
    if (this.reading) return void (this.again = true);
    this.reading = true;
    setImmediate(() => void this.pump());
  };

  /** An SSE stream: the newest 100 lines (after === null) or every line after `after`, then live. */
  stream(filter: LogFilter, after: bigint | null, sink: StreamSink): () => void {
    const stream: Stream = { sink, skipTo: null, quiet: false };
    const key = filterKey(filter);
    let gone = false;
    this.busy++;
    const write = (lines: LogLine[]) => lines.length === 0 || sink.write(this.encoded(lines));
    sink.write(sseRetry(RETRY_MS));
    this.catchUp(filter, after, write, () => gone || this.closed)
      .then((cursor) => {
        if (gone || this.closed) return sink.end();
        // From here on nothing awaits: what follows the cursor in memory, then every read's lines.
        if (!write(this.lines.since(cursor, filter, FEED_LINES))) return;
        if (cursor > this.cursor) stream.skipTo = cursor;
        this.join(key, filter, stream);
        // Lines committed since the feed's last read that have not reached the ring yet come with this read
        // (many streams opening at once share it: reads do not overlap).
        this.wake();
      })
      .catch((err: unknown) => (this.opts.onError(err), sink.end()))
      .finally(() => this.release());
    return () => {
      gone = true;
      const group = this.groups.get(key);
      if (group?.streams.delete(stream) && group.streams.size === 0) this.groups.delete(key);
      this.idleCheck();
    };
  }

  /** A long-poll: matching lines after `after` as soon as there are some, [] after timeoutMs or on abort. */
  async poll(filter: LogFilter, after: bigint, timeoutMs: number, signal: AbortSignal): Promise<LogLine[]> {
    const deadline = Date.now() + timeoutMs;
    this.busy++;
    try {
      await this.ready;
      let cursor = after;
      for (;;) {
        if (signal.aborted || this.closed) return [];
        if (!this.lines.covers(cursor)) {
          if (await this.fillGap(cursor)) continue;
          const start = this.cursor;
          const page = await this.read(filter, cursor, PAGE);
          if (page.length > 0) return page;
          if (cursor < start) cursor = start; // nothing matched up to what had been read before this read
          continue;
        }
        const held = this.lines.since(cursor, filter, PAGE);
        if (held.length > 0) return held;
        const woke = await this.waitFor(cursor, filter, deadline - Date.now(), signal);
        if (woke !== null) return woke;
      }
    } finally {
      this.release();
    }
  }

  /** Long-polls behind the feed's floor (a feed made after their last answer) share one read of the gap,
   *  which the feed then holds: one read a cursor gap, not one a poll. False when the gap is too long to
   *  hold (each poll then reads its own page). */
  private async fillGap(cursor: bigint): Promise<boolean> {
    while (this.filling) {
      const [from, done] = this.filling;
      const filled = await done;
      if (filled && cursor >= from) return true;
      if (!filled) return false;
    }
    const done = this.read({}, cursor, READ_PAGE).then(
      (lines) => this.lines.backfill(cursor, lines, lines.length < READ_PAGE),
      (err: unknown) => (this.opts.onError(err), false),
    );
    this.filling = [cursor, done];
    try {
      return await done;
    } finally {
      this.filling = null;
    }
  }

  /** Shutdown: every stream ends, every long-poll answers an empty page. */
  close(): void {
    this.closed = true;
    this.out.clear();
    for (const g of [...this.groups.values()]) for (const s of [...g.streams]) s.sink.end();
    for (const w of [...this.waiters]) w.finish([]);
    this.stopHeartbeat();
  }

  /** `newest`: the newest FEED_LINES lines, oldest first; fewer are every line there is (floor 0). */
  private begin(newest: LogLine[]): void {
    const oldest = newest[0];
    const floor = newest.length === FEED_LINES && oldest ? BigInt(oldest.id) - 1n : 0n;
    this.cursor = newest.length > 0 ? BigInt(newest.at(-1)!.id) : 0n;
    this.lines = new LogRing({ capacity: FEED_LINES, floor });
    for (const line of newest) this.lines.append(line);
  }

  /** Lines after `after` read from the database, page by page, until the feed holds what follows; answers
   *  the cursor from which the feed's memory serves (at least every line read before the last read). */
  private async catchUp(
    filter: LogFilter,
    after: bigint | null,
    write: (lines: LogLine[]) => boolean,
    gone: () => boolean,
  ): Promise<bigint> {
    await this.ready;
    let cursor = after;
    if (cursor === null) {
      // From memory when the feed holds the newest 100 (it holds every line up to its cursor from its floor).
      const held = this.newestHeld(filter);
      const start = this.cursor;
      const newest = held ?? (await this.read(filter, null, PAGE));
      write(newest);
      cursor = max(newest.at(-1) ? BigInt(newest.at(-1)!.id) : 0n, start);
    }
    while (!this.lines.covers(cursor) && !gone()) {
      const start = this.cursor;
      const page = await this.read(filter, cursor, READ_PAGE);
      if (!write(page)) break;
      if (page.length > 0) cursor = BigInt(page.at(-1)!.id);
      if (page.length < READ_PAGE) cursor = max(cursor, start);
    }
    return cursor;
  }

  private async pump(): Promise<void> {
    let failed = false;
    try {
      await this.ready;
      const tick = this.opts.tickMs ?? DELIVERY_TICK_MS;
      do {
        // Lines that come within a tick of the last fan-out wait for the tick's end and go out together.
        const wait = this.lastFanOut + tick - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        this.again = false;
        for (let full = true; full && !this.closed;) {
          const lines = await this.read({}, this.cursor, READ_PAGE);
          full = lines.length === READ_PAGE;
          if (lines.length === 0) continue;
          this.lastFanOut = performance.now();
          this.fanOut(lines);
          // The next read waits for these writes: what comes meanwhile goes out in one write a stream.
          await this.out.drained();
        }
      } while (this.again && !this.closed);
    } catch (err) {
      failed = true;
      this.opts.onError(err);
    } finally {
      this.reading = false;
    }
    // The database did not answer: subscribers stay, and the next wake (or this retry) reads again.
    if (failed && !this.closed) setTimeout(this.wake, 1_000).unref();
  }

  /** Memory takes the lines at once (a subscriber joining now is served them from there); the writes to
   *  the subscribers already here go out a slice at a time (actors/sliced.ts), so ingest is answered meanwhile. */
  private fanOut(lines: LogLine[]): void {
    for (const line of lines) this.lines.append(line);
    const upTo = BigInt(lines.at(-1)!.id);
    this.cursor = upTo;
    for (const group of this.groups.values()) {
      let text = '';
      for (const line of lines) if (matches(line, group.filter)) text += this.frame(line);
      if (text === '') continue;
      // Encoded once for every stream of the group (a string would be encoded again for each socket).
      const bytes = Buffer.from(text);
      // The streams here now: one that joins later was served these lines from memory as it joined.
      this.out.push([...group.streams], (s) => this.send(s, group.filter, lines, bytes, upTo));
    }
    if (this.waiters.size === 0) return;
    // Long-polls at one cursor with one filter (most, after a wake) share one page.
    const pages = new Map<string, LogLine[]>();
    this.out.push([...this.waiters], (w) => {
      if (!this.lines.covers(w.after)) return w.finish(null);
      const k = `${w.after}|${w.key}`;
      let page = pages.get(k);
      if (!page) pages.set(k, (page = this.lines.since(w.after, w.filter, PAGE)));
      if (page.length > 0) w.finish(page);
    });
  }

  private send(s: Stream, filter: LogFilter, lines: LogLine[], bytes: Buffer, upTo: bigint): void {
    s.quiet = false;
    if (s.skipTo === null) return void s.sink.write(bytes); // a reader cut off ends, and leaves its group
    const past = s.skipTo;
    if (upTo >= past) s.skipTo = null;
    const own = lines.filter((l) => BigInt(l.id) > past && matches(l, filter)).map(this.frame);
    if (own.length > 0) s.sink.write(own.join(''));
  }

  private waitFor(after: bigint, filter: LogFilter, ms: number, signal: AbortSignal): Promise<LogLine[] | null> {
    if (ms <= 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      // Safe to call twice: only the call that removes the waiter resolves and cleans up.
      const finish = (lines: LogLine[] | null) => {
        if (!this.waiters.delete(waiter)) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(lines);
      };
      const onAbort = () => finish([]);
      const waiter: Waiter = { after, filter, key: filterKey(filter), finish };
      this.waiters.add(waiter);
      const timer = setTimeout(onAbort, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private join(key: string, filter: LogFilter, stream: Stream): void {
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { filter, streams: new Set() }));
    group.streams.add(stream);
    this.heartbeat ??= setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** A comment on every stream that was sent nothing since the last beat (proxies close idle ones). */
  private beat(): void {
    for (const g of this.groups.values())
      for (const s of g.streams) {
        if (s.quiet) s.sink.write(SSE_HEARTBEAT);
        s.quiet = true;
      }
  }

  private release(): void {
    this.busy--;
    this.idleCheck();
  }

  private idleCheck(): void {
    if (this.groups.size > 0 || this.waiters.size > 0 || this.busy > 0) return;
    this.stopHeartbeat();
    this.opts.onIdle();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private newestHeld(filter: LogFilter): LogLine[] | null {
    const key = filterKey(filter);
    const known = this.newestPages.get(key);
    if (known?.cursor === this.cursor) return known.lines;
    if (this.newestPages.size >= 100) this.newestPages = new Map();
    const lines = this.lines.newest(filter, PAGE);
    this.newestPages.set(key, { cursor: this.cursor, lines });
    return lines;
  }

  /** A page's SSE frames as bytes, made once for every stream it goes to. */
  private encoded(lines: LogLine[]): Buffer {
    let bytes = this.pages.get(lines);
    if (!bytes) this.pages.set(lines, (bytes = Buffer.from(lines.map(this.frame).join(''))));
    return bytes;
  }

  /** A line's SSE frame, made once however many streams it goes to. */
  private readonly frame = (line: LogLine): string => {
    let text = this.frames.get(line);
    if (text === undefined) this.frames.set(line, (text = sseEvent(line.id, 'log', JSON.stringify(line))));
    return text;
  };
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);

// Fans a project's live state out to WebSocket subscribers through topics: the realtime snapshot every
// second while it changes (topic live:<project>) and each new log line (topic logs:<project>).
// One ticker per watched project, stopped when its last subscriber leaves. Knows no server objects: the
// snapshot comes from wherever the project's actor lives (src/cluster.ts), the lines from this process's ring.
import type { LogRing } from './log-ring.ts';
import type { RealtimeSnapshot } from './realtime-window.ts';

export type Publisher = { publish: (topic: string, text: string) => void; subscribers: (topic: string) => number };

export const liveTopic = (projectId: string) => `live:${projectId}`;
export const logsTopic = (projectId: string) => `logs:${projectId}`;

export type LiveSource = {
  /** The project's log ring in this process (every process's lines reach it). */
  logs: (projectId: string) => LogRing;
  /** The project's realtime snapshot now (an actor in another process may answer it). */
  snapshot: (projectId: string) => Promise<RealtimeSnapshot>;
};

// last: the key of the snapshot subscribers have (null until the first is read); busy: a tick is reading one;
// lines: those the ring gave since the last publish (published on the next turn of the event loop).
type Watch = {
  timer: NodeJS.Timeout;
  unsubscribe: () => void;
  last: string | null;
  busy: boolean;
  lines: string[];
};

export class LiveHub {
  private publisher: Publisher | null = null;
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly source: LiveSource,
    private readonly tickMs = 1_000,
  ) {}

  attach(publisher: Publisher): void {
    this.publisher = publisher;
  }

  /** The current snapshot message, for a subscriber that just joined. */
  async snapshot(projectId: string): Promise<string> {
    const { key, text } = await this.message(projectId);
    const w = this.watches.get(projectId);
    if (w && w.last === null) w.last = key;
    return text;
  }

  /** Starts publishing for a project (idempotent); it stops by itself once nobody listens. */
  watch(projectId: string): void {
    if (this.watches.has(projectId) || !this.publisher) return;
    const ring = this.source.logs(projectId);
    // Published after the flush that appended them has answered its ingest requests: the ring calls its
    // listeners inside that flush's completion, and a publish to thousands of sockets would hold the answers.
    const unsubscribe = ring.subscribe((line) => {
      const w = this.watches.get(projectId);
      if (!w) return;
      if (w.lines.push(JSON.stringify({ type: 'log', line })) === 1)
        setImmediate(() => this.publishLines(projectId, w));
    });
    const timer = setInterval(() => void this.tick(projectId), this.tickMs);
    timer.unref();
    this.watches.set(projectId, { timer, unsubscribe, last: null, busy: false, lines: [] });
  }

  get watched(): number {
    return this.watches.size;
  }

  stop(): void {
    for (const id of [...this.watches.keys()]) this.unwatch(id);
  }

  private async tick(projectId: string): Promise<void> {
    const w = this.watches.get(projectId);
    if (!w || !this.publisher || w.busy) return;
    const listeners =
      this.publisher.subscribers(liveTopic(projectId)) + this.publisher.subscribers(logsTopic(projectId));
    if (listeners === 0) return this.unwatch(projectId);
    w.busy = true;
    try {
      const { key, text } = await this.message(projectId);
      if (key === w.last || this.watches.get(projectId) !== w) return;
      const first = w.last === null; // the subscriber who started the watch is reading this one itself
      w.last = key;
      if (!first) this.publisher?.publish(liveTopic(projectId), text);
    } catch {
      // The actor's process did not answer in time: the next tick asks again.
    } finally {
      w.busy = false;
    }
  }

  private publishLines(projectId: string, w: Watch): void {
    const lines = w.lines;
    w.lines = [];
    if (this.watches.get(projectId) !== w) return;
    for (const text of lines) this.publisher?.publish(logsTopic(projectId), text);
  }

  private unwatch(projectId: string): void {
    const w = this.watches.get(projectId);
    if (!w) return;
    clearInterval(w.timer);
    w.unsubscribe();
    this.watches.delete(projectId);
  }

  /** `key` leaves out the moving window, so an unchanged snapshot is not sent again. */
  private async message(projectId: string): Promise<{ key: string; text: string }> {
    const snap = await this.source.snapshot(projectId);
    const data = {
      visitors: snap.visitors,
      pageviewsPerMinute: snap.pageviewsPerMinute,
      pages: snap.pages,
      countries: snap.countries,
    };
    const key = JSON.stringify(data);
    return { key, text: JSON.stringify({ type: 'realtime', data, window: snap.window }) };
  }
}

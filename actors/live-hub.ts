// Fans a project's live state out to WebSocket subscribers: the realtime snapshot every second while it
// changes (through the topic live:<project>, once a second), and each new log line to the sockets that
// follow the project's lines. Lines go a slice of sockets at a time (./sliced.ts), each socket's
// lines of one turn in one corked write: a uWS publish to 10,000 sockets would hold the event loop, and
// the ingest answers behind it, for the whole copy. One ticker per watched project, stopped when its last
// subscriber leaves. Knows no server objects: the snapshot comes from wherever the project's actor lives
// (src/cluster.ts), the lines from this process's ring.
import { Sliced } from './sliced.ts';
import type { LogRing } from './log-ring.ts';
import type { RealtimeSnapshot } from './realtime-window.ts';

/** A socket that follows a project's lines: false when it is closed or too far behind (it is then dropped). */
export type LineFollower = { sendAll: (messages: readonly Uint8Array[]) => boolean };

export type Publisher = { publish: (topic: string, text: string) => void; subscribers: (topic: string) => number };

export const liveTopic = (projectId: string) => `live:${projectId}`;

export type LiveSource = {
  /** The project's log ring in this process (every process's lines reach it). */
  logs: (projectId: string) => LogRing;
  /** The project's realtime snapshot now (an actor in another process may answer it). */
  snapshot: (projectId: string) => Promise<RealtimeSnapshot>;
};

// last: the key of the snapshot subscribers have (null until the first is read); busy: a tick is reading one;
// lines: those the ring gave since the last send (sent from the next turn of the event loop on);
// followers: the sockets that get the lines.
type Watch = {
  timer: NodeJS.Timeout;
  unsubscribe: () => void;
  last: string | null;
  busy: boolean;
  lines: Uint8Array[];
  followers: Set<LineFollower>;
};

export class LiveHub {
  private publisher: Publisher | null = null;
  private readonly watches = new Map<string, Watch>();
  private readonly out = new Sliced();

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
      // Encoded once for every socket.
      if (w.lines.push(Buffer.from(JSON.stringify({ type: 'log', line }))) === 1)
        setImmediate(() => this.sendLines(projectId, w));
    });
    const timer = setInterval(() => void this.tick(projectId), this.tickMs);
    timer.unref();
    this.watches.set(projectId, { timer, unsubscribe, last: null, busy: false, lines: [], followers: new Set() });
  }

  /** The socket gets the project's log lines from now on (call watch() first); answers its unfollow. */
  follow(projectId: string, follower: LineFollower): () => void {
    const w = this.watches.get(projectId);
    if (!w) return () => {};
    w.followers.add(follower);
    return () => void w.followers.delete(follower);
  }

  get watched(): number {
    return this.watches.size;
  }

  stop(): void {
    this.out.clear();
    for (const id of [...this.watches.keys()]) this.unwatch(id);
  }

  private async tick(projectId: string): Promise<void> {
    const w = this.watches.get(projectId);
    if (!w || !this.publisher || w.busy) return;
    // Every socket of the project subscribes to its live topic; the followers are among them.
    if (this.publisher.subscribers(liveTopic(projectId)) + w.followers.size === 0) return this.unwatch(projectId);
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

  private sendLines(projectId: string, w: Watch): void {
    if (this.watches.get(projectId) !== w) return;
    // Behind a copy still under way, the lines wait for it and then go together, one write a socket.
    if (this.out.pending > 0) return void this.out.drained().then(() => this.sendLines(projectId, w));
    const lines = w.lines;
    w.lines = [];
    // The sockets following now; one that follows later gets the lines from then on (they are not resumable).
    this.out.push([...w.followers], (f) => {
      if (!f.sendAll(lines)) w.followers.delete(f);
    });
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

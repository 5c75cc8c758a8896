// Fans a project's live state out to its WebSocket subscribers: the realtime snapshot every second while it
// changes, to every socket, and each new log line to the sockets that may read the lines (followers).
// Everything goes a slice of sockets at a time (./sliced.ts), each socket's lines of one tick in one
// corked write: a uWS topic publish copies to every socket in C++ in one go, holding the event loop (and
// the ingest answers behind it) for the whole copy. One ticker per watched project, stopped when its last
// socket leaves. Knows no server objects: the snapshot comes from wherever the project's actor lives
// (src/cluster.ts), the lines from this process's ring.
import type { LogRing } from './log-ring.ts';
import type { RealtimeSnapshot } from './realtime-window.ts';
import { DELIVERY_TICK_MS, Sliced } from './sliced.ts';

/** A socket: false when it is closed or too far behind (it is then dropped). */
export type LivePeer = { sendAll: (messages: readonly Uint8Array[]) => boolean };

export type LiveSource = {
  /** The project's log ring in this process (every process's lines reach it). */
  logs: (projectId: string) => LogRing;
  /** The project's realtime snapshot now (an actor in another process may answer it). */
  snapshot: (projectId: string) => Promise<RealtimeSnapshot>;
};

type Message = { key: string; text: string };

// last: the key of the snapshot the sockets have (null until the first is read); busy: a tick is reading
// one; recent: the last snapshot read, for sockets that join within a tick of it; lines: those the ring
// gave since the last send (sent from the next turn of the event loop on).
type Watch = {
  timer: NodeJS.Timeout;
  unsubscribe: () => void;
  last: string | null;
  busy: boolean;
  recent: { at: number; message: Promise<Message> } | null;
  lines: Uint8Array[];
  /** When the last lines went out: the next ones wait until a tick after it. */
  linesAt: number;
  sockets: Set<LivePeer>;
  followers: Set<LivePeer>;
};

export class LiveHub {
  private readonly watches = new Map<string, Watch>();
  private readonly out = new Sliced();

  constructor(
    private readonly source: LiveSource,
    private readonly tickMs = 1_000,
    /** At most one write of lines a socket a tick. */
    private readonly linesEveryMs = DELIVERY_TICK_MS,
  ) {}

  /** The current snapshot message, for a socket that just joined: one read a tick however many join. */
  async snapshot(projectId: string): Promise<string> {
    const w = this.watches.get(projectId);
    if (!w) return (await this.message(projectId)).text;
    if (!w.recent || performance.now() - w.recent.at >= this.tickMs) this.remember(w, this.message(projectId));
    const { key, text } = await w.recent!.message;
    if (w.last === null) w.last = key;
    return text;
  }

  /** The socket gets the project's snapshots (and, once it follows, its lines); answers its leave. */
  join(projectId: string, peer: LivePeer): () => void {
    const w = this.watch(projectId);
    w.sockets.add(peer);
    return () => {
      w.sockets.delete(peer);
      w.followers.delete(peer);
    };
  }

  /** The socket (joined) gets the project's log lines from now on. */
  follow(projectId: string, peer: LivePeer): void {
    this.watches.get(projectId)?.followers.add(peer);
  }

  get watched(): number {
    return this.watches.size;
  }

  stop(): void {
    this.out.clear();
    for (const id of [...this.watches.keys()]) this.unwatch(id);
  }

  private watch(projectId: string): Watch {
    const known = this.watches.get(projectId);
    if (known) return known;
    const ring = this.source.logs(projectId);
    // Sent after the flush that appended them has answered its ingest requests: the ring calls its
    // listeners inside that flush's completion.
    const unsubscribe = ring.subscribe((line) => {
      const w = this.watches.get(projectId);
      if (!w) return;
      // Encoded once for every socket.
      if (w.lines.push(Buffer.from(JSON.stringify({ type: 'log', line }))) !== 1) return;
      // Lines within a tick of the last send wait for the tick's end and go out together.
      const wait = w.linesAt + this.linesEveryMs - performance.now();
      if (wait > 0) setTimeout(() => this.sendLines(projectId, w), wait);
      else setImmediate(() => this.sendLines(projectId, w));
    });
    const timer = setInterval(() => void this.tick(projectId), this.tickMs);
    timer.unref();
    const w: Watch = {
      timer,
      unsubscribe,
      last: null,
      busy: false,
      recent: null,
      lines: [],
      linesAt: -Infinity,
      sockets: new Set(),
      followers: new Set(),
    };
    this.watches.set(projectId, w);
    return w;
  }

  private async tick(projectId: string): Promise<void> {
    const w = this.watches.get(projectId);
    if (!w || w.busy) return;
    if (w.sockets.size === 0) return this.unwatch(projectId);
    w.busy = true;
    try {
      const message = this.message(projectId);
      this.remember(w, message);
      const { key, text } = await message;
      if (key === w.last || this.watches.get(projectId) !== w) return;
      const first = w.last === null; // the socket that started the watch is reading this one itself
      w.last = key;
      if (!first) this.send(w, w.sockets, [Buffer.from(text)]);
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
    w.linesAt = performance.now();
    this.send(w, w.followers, lines);
  }

  /** To the sockets there now; one that joins later gets what comes from then on (nothing is resumable). */
  private send(w: Watch, to: Set<LivePeer>, messages: Uint8Array[]): void {
    this.out.push([...to], (peer) => {
      if (!peer.sendAll(messages)) (w.sockets.delete(peer), w.followers.delete(peer));
    });
  }

  private remember(w: Watch, message: Promise<Message>): void {
    w.recent = { at: performance.now(), message };
    message.catch(() => {
      if (w.recent?.message === message) w.recent = null;
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
  private async message(projectId: string): Promise<Message> {
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

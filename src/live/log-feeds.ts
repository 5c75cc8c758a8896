// The log feeds of this process: one ProjectFeed a watched project, made by its first SSE or long-poll
// subscriber and dropped with its last. Each one listens on the project's ring (actors/log-ring.ts), which
// also keeps the project's actor from being dropped while anyone subscribes (actors/registry.ts).
import type { LogFilter, LogLine, LogRing } from '../../actors/log-ring.ts';
import { ProjectFeed, type StreamSink } from './project-feed.ts';

export type LogFeedOptions = {
  /** The project's lines matching `filter` after `after` (the newest `limit` when null), oldest first. */
  read: (projectId: string, filter: LogFilter, after: bigint | null, limit: number) => Promise<LogLine[]>;
  /** The project's ring in this process: every line committed for it, from any process, reaches it. */
  ring: (projectId: string) => LogRing;
  heartbeatMs?: number;
  /** At most one write a stream a tick (default DELIVERY_TICK_MS). */
  tickMs?: number;
  /** How long a feed nobody subscribes to stays (default 2 s). Long-polls all answered by one fan-out can
   *  leave it empty for longer on a server short of CPU: the feed made again shares one read of the gap
   *  below its floor among them (ProjectFeed.fillGap). */
  lingerMs?: number;
  onError?: (err: unknown, projectId: string) => void;
};

export class LogFeeds {
  /** `linger`: the timer that drops an idle feed; a long-poller's next poll, coming right after its last,
   *  finds the feed still reading (no new read of the newest id, no catch-up). */
  private readonly feeds = new Map<
    string,
    { feed: ProjectFeed; unsubscribe: () => void; linger: NodeJS.Timeout | null }
  >();
  private closed = false;

  constructor(private readonly opts: LogFeedOptions) {}

  /** An SSE stream of the project's lines (see ProjectFeed.stream); answers its cleanup. */
  stream(projectId: string, filter: LogFilter, after: bigint | null, sink: StreamSink): () => void {
    if (this.closed) {
      sink.end();
      return () => {};
    }
    return this.feedOf(projectId).stream(filter, after, sink);
  }

  /** A long-poll (see ProjectFeed.poll); [] at once while shutting down. */
  async poll(
    projectId: string,
    filter: LogFilter,
    after: bigint,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<LogLine[]> {
    if (this.closed) return [];
    return this.feedOf(projectId).poll(filter, after, timeoutMs, signal);
  }

  /** SSE streams and long-polls open on the project in this process. */
  subscribers(projectId: string): number {
    return this.feeds.get(projectId)?.feed.subscribers ?? 0;
  }

  get size(): number {
    return this.feeds.size;
  }

  /** Shutdown: streams end and long-polls answer now; nothing new is taken. */
  close(): void {
    this.closed = true;
    for (const { feed, unsubscribe, linger } of this.feeds.values()) {
      if (linger) clearTimeout(linger);
      feed.close();
      unsubscribe();
    }
    this.feeds.clear();
  }

  private feedOf(projectId: string): ProjectFeed {
    const known = this.feeds.get(projectId);
    if (known) {
      if (known.linger) clearTimeout(known.linger);
      known.linger = null;
      return known.feed;
    }
    const feed: ProjectFeed = new ProjectFeed((f, after, limit) => this.opts.read(projectId, f, after, limit), {
      heartbeatMs: this.opts.heartbeatMs ?? 15_000,
      tickMs: this.opts.tickMs,
      onIdle: () => {
        const entry = this.feeds.get(projectId);
        if (entry?.feed !== feed || entry.linger) return;
        entry.linger = setTimeout(() => {
          if (feed.subscribers > 0 || this.feeds.get(projectId) !== entry) return;
          entry.unsubscribe();
          this.feeds.delete(projectId);
        }, this.opts.lingerMs ?? 2_000);
        entry.linger.unref();
      },
      onError: (err) => this.opts.onError?.(err, projectId),
    });
    // Listening before the feed reads the newest id: a line committed meanwhile wakes a read after it.
    const unsubscribe = this.opts.ring(projectId).subscribe(feed.wake);
    this.feeds.set(projectId, { feed, unsubscribe, linger: null });
    return feed;
  }
}

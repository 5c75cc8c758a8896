// Fans a project's live state out to WebSocket subscribers through topics: the realtime snapshot every
// second while it changes (topic live:<project>) and each new log line (topic logs:<project>).
// One ticker per watched project, stopped when its last subscriber leaves. Knows no server objects.
import type { ProjectActor } from './project-actor.ts';

export type Publisher = { publish: (topic: string, text: string) => void; subscribers: (topic: string) => number };

export const liveTopic = (projectId: string) => `live:${projectId}`;
export const logsTopic = (projectId: string) => `logs:${projectId}`;

type Watch = { timer: NodeJS.Timeout; unsubscribe: () => void; last: string };

export class LiveHub {
  private publisher: Publisher | null = null;
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly actorFor: (projectId: string) => ProjectActor,
    private readonly tickMs = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  attach(publisher: Publisher): void {
    this.publisher = publisher;
  }

  /** The current snapshot message, for a subscriber that just joined. */
  snapshot(projectId: string): string {
    return this.message(projectId).text;
  }

  /** Starts publishing for a project (idempotent); it stops by itself once nobody listens. */
  watch(projectId: string): void {
    if (this.watches.has(projectId) || !this.publisher) return;
    const actor = this.actorFor(projectId);
    const unsubscribe = actor.logs.subscribe((line) => this.publisher?.publish(logsTopic(projectId), JSON.stringify({ type: 'log', line })));
    const timer = setInterval(() => this.tick(projectId), this.tickMs);
    timer.unref();
    this.watches.set(projectId, { timer, unsubscribe, last: this.message(projectId).key });
  }

  get watched(): number {
    return this.watches.size;
  }

  stop(): void {
    for (const id of [...this.watches.keys()]) this.unwatch(id);
  }

  private tick(projectId: string): void {
    const w = this.watches.get(projectId);
    if (!w || !this.publisher) return;
    const listeners = this.publisher.subscribers(liveTopic(projectId)) + this.publisher.subscribers(logsTopic(projectId));
    if (listeners === 0) return this.unwatch(projectId);
    const { key, text } = this.message(projectId);
    if (key === w.last) return;
    w.last = key;
    this.publisher.publish(liveTopic(projectId), text);
  }

  private unwatch(projectId: string): void {
    const w = this.watches.get(projectId);
    if (!w) return;
    clearInterval(w.timer);
    w.unsubscribe();
    this.watches.delete(projectId);
  }

  /** `key` leaves out the moving window, so an unchanged snapshot is not sent again. */
  private message(projectId: string): { key: string; text: string } {
    const snap = this.actorFor(projectId).realtime.snapshot(this.now(), 0);
    const data = { visitors: snap.visitors, pageviewsPerMinute: snap.pageviewsPerMinute, pages: snap.pages, countries: snap.countries };
    const key = JSON.stringify(data);
    return { key, text: JSON.stringify({ type: 'realtime', data, window: snap.window }) };
  }
}

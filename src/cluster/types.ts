// What the rest of Loupe sees of the cluster (src/cluster/index.ts), and the errors a forward ends in.
import type { IngestMeta, IngestOutcome, CounterDelta, PendingLog } from '../../actors/project-actor.ts';
import type { RealtimeSnapshot } from '../../actors/realtime-window.ts';
import type { ForwardMessage } from '../bus-messages.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';

/** A project's realtime window at the holder, now: the snapshot (its `visitors` are the overview's online),
 *  and the views a minute. */
export type RealtimeView = { snapshot: RealtimeSnapshot; viewsPerMinute: number[] };

/** What a route asks of a project's actor, wherever it lives. */
export type ProjectHandle = {
  ingest: (rows: EnrichedEvent[], meta: IngestMeta) => Promise<IngestOutcome>;
  /** A line that needs no acknowledgement (rate limiting, SDK reports). */
  log: (line: PendingLog, counters?: Partial<CounterDelta>) => void;
  realtime: (limit: number) => Promise<RealtimeView>;
  /** A visitor marked internal or not: their later events follow, and an internal one leaves realtime. */
  markInternal: (visitor: string, isInternal: boolean) => Promise<void>;
};

export type Cluster = {
  project: (projectId: string) => Promise<ProjectHandle>;
  /** Before a read of the project's tables: applies the sessions and visitors its actor holds (here, or
   *  in the holder; nothing when nobody holds the project). */
  settle: (projectId: string) => Promise<void>;
  /** Before a read across projects: applies what the actors of these projects hold, here and in every other
   *  process (one request each, all at once). */
  settleAll: (projectIds: readonly string[]) => Promise<void>;
  /** The projects whose lease this process holds. */
  held: () => string[];
  /** Called by the registry when it drops an idle actor: its lease is freed for whoever needs it next. */
  dropped: (projectId: string) => void;
  /** Takes no more forwarded requests, fails this process's own forwards, flushes every actor (the batches
   *  forwarded here included, whose answers go out), then frees every lease and says so. */
  stop: () => Promise<void>;
};

/** A request to a project's holder, and the part of it the sender fills in. */
export type Request = Exclude<ForwardMessage, { kind: 'reply' | 'settle-held' }>;
export type RequestBody = Request extends infer R
  ? R extends Request
    ? Omit<R, 'id' | 'from' | 'projectId'>
    : never
  : never;

/** The request provably reached nobody who acted on it: no process listened on the holder's channel, or
 *  the holder answered that the project moved before serving it. Only such a request is sent again. */
export class NotDelivered extends Error {}

/** The bus could not send a request: nothing reached the other process. */
export class Unsent extends Error {
  constructor(cause: unknown) {
    super('the bus could not send the request', { cause });
  }
}

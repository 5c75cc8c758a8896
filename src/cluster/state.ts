// What one process knows of the cluster: the projects it holds, who it last heard holds the others, the
// replies it waits for, and the handle of each project it holds. Every src/cluster module works on it.
import type { ProjectActor } from '../../actors/project-actor.ts';
import type { ActorRegistry } from '../../actors/registry.ts';
import type { Bus } from '../bus.ts';
import type { Leases } from '../leases.ts';
import type { Logger } from '../log.ts';
import type { ProjectHandle } from './types.ts';

/** A reply awaited from `process`, sent at `sent` (ms). */
export type Pending = {
  process: string;
  sent: number;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
};

export type ClusterState = {
  self: string;
  actors: ActorRegistry;
  leases: Leases;
  bus: Bus;
  log: Logger;
  /** The channel a process listens on. */
  channel: (process: string) => string;
  held: Set<string>;
  holders: Map<string, { holder: string; until: number }>;
  pending: Map<string, Pending>;
  handles: Map<string, { actor: ProjectActor; handle: ProjectHandle }>;
  /** Actors whose live state is the project's while this process holds its lease: made here while it
   *  held it. One kept for its log ring, or left from a lease this process lost, is not. */
  current: WeakSet<ProjectActor>;
  stopped: boolean;
  /** Looks for awaited processes that are gone, while any reply is awaited (src/cluster/ask.ts). */
  liveness: NodeJS.Timeout | null;
};

/** How long a process trusts what it learned of a project's holder before it asks again. */
const HOLDER_CACHE_MS = 2_000;

/** This process now holds the project: an actor that was here already and is not current reads back
 *  what went on meanwhile (after writing what it still has queued). Taking a project held already (two
 *  requests acquired it at once) changes nothing: it would read back twice. */
export function take(state: ClusterState, projectId: string): void {
  if (state.held.has(projectId)) return;
  state.held.add(projectId);
  state.holders.delete(projectId);
  const actor = state.actors.peek(projectId);
  if (actor && !state.current.has(actor)) void actor.reload();
}

/** This process no longer holds these projects: their requests go to whoever holds them now. */
export function lose(state: ClusterState, projectIds: string[]): void {
  for (const projectId of projectIds) {
    state.held.delete(projectId);
    const actor = state.actors.peek(projectId);
    if (actor) state.current.delete(actor);
  }
}

/** The project's holder: this process when it holds the lease or can take it. */
export async function holderOf(state: ClusterState, projectId: string): Promise<string> {
  if (state.held.has(projectId)) return state.self;
  const known = state.holders.get(projectId);
  if (known && known.until > Date.now()) return known.holder;
  const holder = await state.leases.acquire(projectId);
  if (holder === state.self) take(state, projectId);
  else state.holders.set(projectId, { holder, until: Date.now() + HOLDER_CACHE_MS });
  return holder;
}

/** The handle of a project this process holds, on its actor (made, with its live state read back, if
 *  there is none): one a project while its actor lives. */
export function heldHandle(state: ClusterState, projectId: string): ProjectHandle {
  const actor = state.actors.get(projectId);
  state.current.add(actor);
  const known = state.handles.get(projectId);
  if (known?.actor === actor) return known.handle;
  const handle = localHandle(actor);
  state.handles.set(projectId, { actor, handle });
  return handle;
}

function localHandle(actor: ProjectActor): ProjectHandle {
  return {
    ingest: (rows, meta) => actor.ingest(rows, meta),
    log: (line, counters) => actor.log(line, counters),
    async realtime(limit) {
      await actor.ready();
      const now = Date.now();
      return { snapshot: actor.realtime.snapshot(now, limit), viewsPerMinute: actor.realtime.viewsPerMinute(now) };
    },
    markInternal: (visitor, isInternal) => actor.markInternal(visitor, isInternal),
  };
}

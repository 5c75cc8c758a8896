// The project actors of this process: created on demand, stopped after a quiet spell (flushed first),
// so memory stays bounded however many projects exist. Shutdown flushes every actor.
import type { LogLine, LogRing } from './log-ring.ts';
import { ProjectActor, type ActorOptions, type ActorStore } from './project-actor.ts';

export type ActorRegistry = {
  get: (projectId: string) => ProjectActor;
  /** The project's log ring in this process; an actor made only for it reads back no live state (one that
   *  starts taking events later reads it then: ProjectActor.reload). */
  logs: (projectId: string) => LogRing;
  peek: (projectId: string) => ProjectActor | undefined;
  /** Log lines committed outside an actor's flush (job runs): to the live streams of this process's actor
   *  of the project, if it has one (whoever waits on a stream holds one), and through `onLogs` to other
   *  processes'. Lines an actor commits itself reach both on their own. */
  deliver: (projectId: string, lines: LogLine[]) => void;
  /** Drops actors idle past idleMs (runs on a timer; exposed for tests). */
  sweep: () => number;
  size: () => number;
  flushAll: () => Promise<void>;
  /** Applies every actor's committed deltas to sessions and visitors (reads across projects). */
  settleAll: () => Promise<void>;
  stop: () => Promise<void>;
};

export function createActorRegistry(
  opts: ActorOptions & {
    store: ActorStore;
    idleMs?: number;
    sweepMs?: number;
    /** Told of each actor dropped for idleness (its project's lease, if any, can go). */
    onDrop?: (projectId: string) => void;
  },
): ActorRegistry {
  const actors = new Map<string, ProjectActor>();
  const now = opts.now ?? Date.now;
  // Past the 30-minute session gap, an idle actor holds nothing live: its sessions have ended.
  const idleMs = opts.idleMs ?? 31 * 60_000;

  function sweepIdle(): number {
    let dropped = 0;
    for (const [id, actor] of actors) {
      if (actor.idle && now() - actor.lastActivity > idleMs && !watched(actor)) {
        actors.delete(id);
        opts.onDrop?.(id);
        dropped++;
      }
    }
    return dropped;
  }
  // Any subscriber of any kind holds the ring: the SSE and long-poll feeds (src/live) and the WebSocket hub
  // listen on it, and a long-poll on the ring itself waits in it. Dropping the actor would strand them on a
  // ring that no line reaches any more.
  const watched = (actor: ProjectActor) => actor.logs.listenerCount > 0 || actor.logs.waiterCount > 0;
  const sweep = setInterval(sweepIdle, opts.sweepMs ?? 30_000);
  sweep.unref();

  /** The project's actor, made if there is none (reading back the project's live state when `restore`). */
  function actorOf(projectId: string, restore: boolean): ProjectActor {
    let actor = actors.get(projectId);
    if (!actor) {
      actor = new ProjectActor(projectId, opts.store, restore ? opts : { ...opts, restore: false });
      actors.set(projectId, actor);
    }
    return actor;
  }

  return {
    get: (projectId) => actorOf(projectId, true),
    logs: (projectId) => actorOf(projectId, false).logs,
    peek: (projectId) => actors.get(projectId),
    deliver(projectId, lines) {
      if (lines.length === 0) return;
      const actor = actors.get(projectId);
      for (const line of lines) actor?.logs.append(line);
      opts.onLogs?.(projectId, lines);
    },
    sweep: sweepIdle,
    size: () => actors.size,
    flushAll: async () => {
      await Promise.all([...actors.values()].map((a) => a.flush()));
    },
    settleAll: async () => {
      await Promise.all([...actors.values()].map((a) => a.settle()));
    },
    stop: async () => {
      clearInterval(sweep);
      await Promise.all([...actors.values()].map((a) => a.flush()));
      actors.clear();
    },
  };
}

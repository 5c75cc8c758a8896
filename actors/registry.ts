// The project actors of this process: created on demand, stopped after a quiet spell (flushed first),
// so memory stays bounded however many projects exist. Shutdown flushes every actor.
import { ProjectActor, type ActorOptions, type ActorStore } from './project-actor.ts';

export type ActorRegistry = {
  get: (projectId: string) => ProjectActor;
  peek: (projectId: string) => ProjectActor | undefined;
  /** Drops actors idle past idleMs (runs on a timer; exposed for tests). */
  sweep: () => number;
  size: () => number;
  flushAll: () => Promise<void>;
  /** Applies every actor's committed deltas to sessions and visitors (reads across projects). */
  settleAll: () => Promise<void>;
  stop: () => Promise<void>;
};

export function createActorRegistry(opts: ActorOptions & { store: ActorStore; idleMs?: number; sweepMs?: number }): ActorRegistry {
  const actors = new Map<string, ProjectActor>();
  const now = opts.now ?? Date.now;
  // Past the 30-minute session gap, an idle actor holds nothing live: its sessions have ended.
  const idleMs = opts.idleMs ?? 31 * 60_000;

  function sweepIdle(): number {
    let dropped = 0;
    for (const [id, actor] of actors) {
      if (actor.idle && now() - actor.lastActivity > idleMs && actor.logs.listenerCount === 0) {
        actors.delete(id);
        dropped++;
      }
    }
    return dropped;
  }
  const sweep = setInterval(sweepIdle, opts.sweepMs ?? 30_000);
  sweep.unref();

  return {
    get(projectId) {
      let actor = actors.get(projectId);
      if (!actor) {
        actor = new ProjectActor(projectId, opts.store, opts);
        actors.set(projectId, actor);
      }
      return actor;
    },
    peek: (projectId) => actors.get(projectId),
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

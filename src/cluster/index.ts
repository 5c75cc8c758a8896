// Where a project's actor lives (DESIGN.md, data flow 5; docs/live.md): in the one process that holds the
// project's lease (src/leases.ts). A request for a project goes to this process's actor when it holds the
// lease or can take it; otherwise it is forwarded through the bus to the holder (forward.ts), which
// answers on the sender's channel (answer.ts). Alone (no Redis) this process holds every lease and nothing
// is forwarded. A process that takes over a project reads back what is live in it first (state.ts: take).
import { randomUUID } from 'node:crypto';
import type { ActorRegistry } from '../../actors/registry.ts';
import type { Bus } from '../bus.ts';
import { readForwardMessage, readReleasedMessage } from '../bus-messages.ts';
import { unavailable } from '../errors.ts';
import type { Leases } from '../leases.ts';
import type { Logger } from '../log.ts';
import { answer, refuseUnreadable, settleHeld } from './answer.ts';
import { ask, failPending, settleReply } from './ask.ts';
import { forward, remoteHandle } from './forward.ts';
import { startRenewal } from './renewal.ts';
import { heldHandle, holderOf, type ClusterState } from './state.ts';
import type { Cluster } from './types.ts';

export type { Cluster, ProjectHandle, RealtimeView } from './types.ts';

export function createCluster(opts: {
  actors: ActorRegistry;
  leases: Leases;
  bus: Bus;
  /** Channel names start with it (it names the database the processes share). */
  prefix: string;
  log: Logger;
  /** How long a forwarded read waits for its answer, and a forwarded batch, from a holder still alive. */
  timeoutMs?: number;
  ingestTimeoutMs?: number;
  /** Leases are renewed this often; this process stops serving its projects once it could not renew them
   *  for `leaseMs` less a margin (another process may hold them by then). */
  renewMs?: number;
  leaseMs?: number;
}): Cluster {
  const state: ClusterState = {
    self: opts.leases.self,
    actors: opts.actors,
    leases: opts.leases,
    bus: opts.bus,
    log: opts.log,
    channel: (process) => `${opts.prefix}actor:${process}`,
    held: new Set(),
    holders: new Map(),
    pending: new Map(),
    handles: new Map(),
    current: new WeakSet(),
    stopped: false,
    liveness: null,
  };
  const times = { timeoutMs: opts.timeoutMs ?? 5_000, ingestTimeoutMs: opts.ingestTimeoutMs ?? 10_000 };
  const { bus, leases, log } = state;

  // A process that stops frees its leases and says so: the others forget it as the projects' holder at once.
  const unsubscribeReleased = bus.subscribe(state.channel('released'), (message) => {
    const m = readReleasedMessage(message);
    if (!m || m.from === state.self) return;
    for (const id of m.projectIds) if (state.holders.get(id)?.holder === m.from) state.holders.delete(id);
  });
  const unsubscribe = bus.subscribe(state.channel(state.self), (message) => {
    const m = readForwardMessage(message);
    if (!m) return refuseUnreadable(state, message);
    if (m.kind === 'settle-held') return void settleHeld(state, m);
    if (m.kind === 'reply') return settleReply(state, m);
    void answer(state, m);
  });
  const stopRenewal = startRenewal(state, { renewMs: opts.renewMs ?? 1_000, leaseMs: opts.leaseMs ?? 3_000 });

  /** Asks another process to apply what it holds of these projects; answers whether it did in time. */
  const askSettle = (process: string, projectIds: readonly string[]) =>
    ask(state, process, { kind: 'settle-held', id: randomUUID(), from: state.self, projectIds }, times.timeoutMs).then(
      () => true,
      () => false,
    );

  return {
    async project(projectId) {
      if (state.stopped) throw unavailable('The server is shutting down.');
      const holder = await holderOf(state, projectId);
      return holder === state.self ? heldHandle(state, projectId) : remoteHandle(state, times, projectId, holder);
    },
    async settle(projectId) {
      // Redis out of reach: the read goes on with what this process holds (the holder's last seconds may
      // be missing from it, as when the holder does not answer).
      const holder = state.held.has(projectId) ? state.self : await leases.holder(projectId).catch(() => state.self);
      if (holder === null || holder === state.self) return state.actors.peek(projectId)?.settle();
      try {
        await forward(state, times, projectId, holder, { kind: 'settle' });
      } catch (err) {
        // The read goes on: it may miss the holder's last few seconds of sessions and visitors.
        log.warn('the process holding a project did not apply its sessions and visitors before a read', {
          err,
          projectId,
        });
      }
    },
    async settleAll(projectIds) {
      const local = Promise.all(projectIds.map((projectId) => state.actors.peek(projectId)?.settle()));
      local.catch(() => {}); // awaited below, after the other processes: a failure meanwhile is not unhandled
      let peers: string[] = [];
      try {
        peers = await leases.peers();
      } catch (err) {
        log.warn('could not list the other processes before a read across projects', { err });
      }
      const answered = await Promise.all(peers.map((peer) => askSettle(peer, projectIds)));
      await local;
      // The read goes on: it may miss those processes' last few seconds of sessions and visitors.
      const silent = answered.filter((ok) => !ok).length;
      if (silent > 0)
        log.warn('processes did not apply their sessions and visitors before a read across projects', {
          processes: silent,
        });
    },
    held: () => [...state.held],
    dropped(projectId) {
      state.handles.delete(projectId);
      if (!state.held.delete(projectId)) return;
      leases.release(projectId).catch((err: unknown) => log.warn('could not free a project lease', { err, projectId }));
    },
    async stop() {
      state.stopped = true;
      stopRenewal();
      failPending(state, unavailable('The server is shutting down.'));
      // Still listening: requests forwarded meanwhile are told the project moved (their senders try again).
      await state.actors.stop();
      const projectIds = [...state.held];
      state.held.clear();
      await Promise.allSettled(projectIds.map((projectId) => leases.release(projectId)));
      if (projectIds.length > 0)
        await bus.publish(state.channel('released'), { from: state.self, projectIds }).catch(() => {});
      await leases.leave().catch(() => {});
      unsubscribe();
      unsubscribeReleased();
    },
  };
}

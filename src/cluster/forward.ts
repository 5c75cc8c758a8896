// A project held by another process: its handle forwards each request to the holder and waits for the
// answer. A request that provably reached nobody (the holder is gone, or answered that the project moved
// before serving it) goes once more to whoever holds the project now; while a dead holder's lease still
// names it, the answer is 503 with Retry-After at once. A delivered request is never sent twice, so a batch
// committed by a holder that died before answering is never answered `duplicates` by its successor.
import { randomUUID } from 'node:crypto';
import type { IngestOutcome } from '../../actors/project-actor.ts';
import { unavailable } from '../errors.ts';
import { ask } from './ask.ts';
import { heldHandle, holderOf, type ClusterState } from './state.ts';
import { serve } from './answer.ts';
import {
  NotDelivered,
  Unsent,
  type ProjectHandle,
  type RealtimeView,
  type Request,
  type RequestBody,
} from './types.ts';

/** How long a forwarded read waits for its answer, and a forwarded batch (a holder alive but slow). */
export type ForwardTimes = { timeoutMs: number; ingestTimeoutMs: number };

export function remoteHandle(
  state: ClusterState,
  times: ForwardTimes,
  projectId: string,
  holder: string,
): ProjectHandle {
  const send = (body: RequestBody) => forward(state, times, projectId, holder, body);
  return {
    ingest: async (rows, meta) => (await send({ kind: 'ingest', rows, meta })) as IngestOutcome,
    log(line, counters = {}) {
      const message = { kind: 'log', id: randomUUID(), from: state.self, projectId, line, counters };
      state.bus
        .publish(state.channel(holder), message)
        .catch((err: unknown) =>
          state.log.warn('could not forward a log line to the process holding its project', { err, projectId }),
        );
    },
    realtime: async (limit) => (await send({ kind: 'realtime', limit })) as RealtimeView,
    markInternal: async (visitor, isInternal) => void (await send({ kind: 'mark-internal', visitor, isInternal })),
  };
}

/** Sends a request to the holder and answers its value (see the module's head for when it goes again). */
export async function forward(
  state: ClusterState,
  times: ForwardTimes,
  projectId: string,
  holder: string,
  body: RequestBody,
  retry = true,
): Promise<unknown> {
  const id = randomUUID();
  const request = { ...body, id, from: state.self, projectId };
  try {
    return await ask(state, holder, request, body.kind === 'ingest' ? times.ingestTimeoutMs : times.timeoutMs);
  } catch (err) {
    if (err instanceof Unsent) {
      state.log.warn('could not forward a request to the process holding its project', { err: err.cause, projectId });
      throw unavailable(`Project ${projectId} is held by another process, which cannot be reached; try again.`);
    }
    if (!(err instanceof NotDelivered)) throw err;
    state.holders.delete(projectId);
    const now = retry ? await state.leases.holder(projectId) : holder;
    if (now === holder)
      throw unavailable(
        `Project ${projectId} is changing process: its holder is gone and its lease has not expired yet; try again.`,
      );
    const next = await holderOf(state, projectId);
    if (next === state.self) return serve(state, heldHandle(state, projectId), request as Request);
    return forward(state, times, projectId, next, body, false);
  }
}

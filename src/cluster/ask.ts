// Asking another process and waiting for its reply. A request no process received (nobody listens on the
// holder's channel: it died) fails at once as NotDelivered, and may go elsewhere. A delivered request is
// never sent again, since its holder may have done it (a batch committed) without answering: it fails
// with 503 as soon as the holder is seen gone (its channel loses its listener), or after `waitMs`.
import { HttpError, errorCatalogue, unavailable, type ErrorCode } from '../errors.ts';
import type { ClusterState, Pending } from './state.ts';
import { NotDelivered, Unsent } from './types.ts';

/** How often the processes awaited for longer than this are checked for a listener on their channel. */
export const LIVENESS_MS = 500;

export async function ask(
  state: ClusterState,
  process: string,
  request: Record<string, unknown> & { id: string },
  waitMs: number,
): Promise<unknown> {
  const waiting: Pending = { process, sent: Date.now(), resolve: () => {}, reject: () => {} };
  const answer = new Promise<unknown>((resolve, reject) => Object.assign(waiting, { resolve, reject }));
  state.pending.set(request.id, waiting);
  let receivers: number;
  try {
    receivers = await state.bus.publish(state.channel(process), request);
  } catch (err) {
    state.pending.delete(request.id);
    throw new Unsent(err);
  }
  if (receivers === 0) {
    state.pending.delete(request.id);
    throw new NotDelivered(`process ${process} does not listen`);
  }
  waiting.timer = setTimeout(() => {
    if (state.pending.delete(request.id))
      waiting.reject(unavailable('The process holding the project did not answer in time; try again.'));
  }, waitMs);
  watchLiveness(state);
  return answer;
}

/** A reply from the process asked: settles its pending request (one answered after its deadline is dropped). */
export function settleReply(
  state: ClusterState,
  m: { id: string; ok: boolean; value?: unknown; error?: { code: string; message: string; moved?: boolean } },
): void {
  const p = state.pending.get(m.id);
  if (!p) return;
  state.pending.delete(m.id);
  clearTimeout(p.timer);
  if (m.ok) return p.resolve(m.value);
  const e = m.error ?? { code: 'INTERNAL', message: 'The process holding the project failed.' };
  if (e.moved) return p.reject(new NotDelivered(e.message));
  p.reject(e.code === 'UNAVAILABLE' ? unavailable(e.message) : new HttpError(knownCode(e.code), e.message));
}

/** Fails every pending request (shutdown). */
export function failPending(state: ClusterState, err: unknown): void {
  for (const [id, p] of state.pending) {
    clearTimeout(p.timer);
    p.reject(err);
    state.pending.delete(id);
  }
}

/** While replies are awaited: every LIVENESS_MS, one look a process at whether anyone still listens on
 *  the channel of each process awaited for that long; the requests to a process gone fail with 503. */
function watchLiveness(state: ClusterState): void {
  if (state.liveness) return;
  const timer = setInterval(() => {
    if (state.pending.size === 0) {
      clearInterval(timer);
      state.liveness = null;
      return;
    }
    const old = Date.now() - LIVENESS_MS;
    const processes = new Set<string>();
    for (const p of state.pending.values()) if (p.sent <= old) processes.add(p.process);
    for (const process of processes) void checkAlive(state, process);
  }, LIVENESS_MS);
  timer.unref();
  state.liveness = timer;
}

async function checkAlive(state: ClusterState, process: string): Promise<void> {
  const listening = await state.bus.receivers(state.channel(process)).catch(() => 1); // unknown: keep waiting
  if (listening > 0) return;
  for (const [id, p] of state.pending) {
    if (p.process !== process) continue;
    state.pending.delete(id);
    clearTimeout(p.timer);
    p.reject(
      unavailable(
        'The process holding the project stopped while serving this request, which may or may not have been ' +
          'done: send it again (events already stored are answered as duplicates).',
      ),
    );
  }
}

function knownCode(code: string): ErrorCode {
  return code in errorCatalogue ? (code as ErrorCode) : 'INTERNAL';
}

// The holder's side: what it does with a request another process forwarded, and how it answers on the
// sender's channel. A request for a project this process no longer holds (it let it go, or is stopping)
// is answered `moved` before anything is done, so the sender may send it elsewhere.
import type { CounterDelta, IngestMeta, PendingLog } from '../../actors/project-actor.ts';
import type { ForwardMessage } from '../bus-messages.ts';
import { beginUrgent } from '../../actors/sliced.ts';
import { HttpError } from '../errors.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { heldHandle, take, type ClusterState } from './state.ts';
import type { ProjectHandle, Request } from './types.ts';

/** What the holder does with a forwarded request; its answer goes back as the reply's value. */
export async function serve(state: ClusterState, local: ProjectHandle, m: Request): Promise<unknown> {
  switch (m.kind) {
    case 'ingest':
      return local.ingest(m.rows as unknown as EnrichedEvent[], m.meta as IngestMeta);
    case 'log':
      return local.log(m.line as unknown as PendingLog, m.counters as Partial<CounterDelta>);
    case 'realtime':
      return local.realtime(m.limit);
    case 'mark-internal':
      return local.markInternal(m.visitor, m.isInternal);
    case 'settle':
      return state.actors.get(m.projectId).settle();
  }
}

/** Answers a request on its sender's channel. */
const replyTo = (state: ClusterState, m: { id: string; from: string }) => (body: Record<string, unknown>) =>
  state.bus.publish(state.channel(m.from), { kind: 'reply', id: m.id, ...body });

export async function answer(state: ClusterState, m: Request): Promise<void> {
  const reply = replyTo(state, m);
  // A forwarded batch is an ingest request whose client waits as one sent here would: a live fan-out under
  // way lets it through between slices (actors/sliced.ts), until its reply is published.
  const done = m.kind === 'ingest' ? beginUrgent() : () => {};
  try {
    await answerRequest(state, m, reply);
  } finally {
    done();
  }
}

async function answerRequest(
  state: ClusterState,
  m: Request,
  reply: (body: Record<string, unknown>) => Promise<unknown>,
): Promise<void> {
  const moved = () =>
    m.kind === 'log'
      ? Promise.resolve()
      : reply({
          ok: false,
          error: { code: 'UNAVAILABLE', message: `Project ${m.projectId} moved to another process.`, moved: true },
        });
  try {
    // Sent here while this process held the project; if it let it go since (or is stopping), whoever holds
    // it now serves.
    if (state.stopped) return void (await moved());
    if (!state.held.has(m.projectId)) {
      const holder = await state.leases.acquire(m.projectId);
      if (holder === state.self && state.stopped) await state.leases.release(m.projectId); // taken while stopping
      if (holder !== state.self || state.stopped) return void (await moved());
      take(state, m.projectId);
    }
    const value = await serve(state, heldHandle(state, m.projectId), m);
    if (m.kind !== 'log') await reply({ ok: true, value: value ?? null });
  } catch (err) {
    if (m.kind === 'log')
      return state.log.warn('a forwarded log line was not written', { err, projectId: m.projectId });
    const known = err instanceof HttpError;
    if (!known) state.log.error('a forwarded request failed', { err, projectId: m.projectId, kind: m.kind });
    await reply({
      ok: false,
      error: known
        ? { code: err.code, message: err.message }
        : { code: 'INTERNAL', message: 'The process holding the project failed.' },
    }).catch(() => {});
  }
}

/** Applies what is held of the projects a read across projects asks of this process: only those it holds
 *  (a project it let go, or never had, it neither takes nor reads back for this). */
export async function settleHeld(
  state: ClusterState,
  m: Extract<ForwardMessage, { kind: 'settle-held' }>,
): Promise<void> {
  const reply = replyTo(state, m);
  try {
    await Promise.all(m.projectIds.filter((id) => state.held.has(id)).map((id) => state.actors.peek(id)?.settle()));
    await reply({ ok: true, value: null });
  } catch (err) {
    state.log.error('a read across projects could not apply what this process holds', { err });
    await reply({
      ok: false,
      error: { code: 'INTERNAL', message: 'A process holding projects failed to apply them.' },
    }).catch(() => {});
  }
}

/** A request this version cannot read (a rolling deploy, say): its sender hears so now, not after a timeout. */
export function refuseUnreadable(state: ClusterState, message: unknown): void {
  const r = message as { id?: unknown; from?: unknown; kind?: unknown };
  if (typeof r?.id === 'string' && typeof r.from === 'string' && r.kind !== 'reply' && r.kind !== 'log') {
    state.bus
      .publish(state.channel(r.from), {
        kind: 'reply',
        id: r.id,
        ok: false,
        error: { code: 'INTERNAL', message: 'The process holding the project could not read the request.' },
      })
      .catch(() => {});
  }
  state.log.warn('a forwarded message could not be read', { kind: r?.kind });
}

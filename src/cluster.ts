// Where a project's actor lives (DESIGN.md, data flow 5): in the one process that holds the project's lease
// (src/leases.ts). A request for a project goes to this process's actor when it holds the lease or can
// take it; otherwise it is forwarded through the bus to the holder, which answers on the sender's channel:
// ingest batches (answered once committed there), loose log lines, realtime reads, a visitor leaving
// realtime, and a read's request to apply the sessions and visitors the holder has not written yet. Alone (no Redis) this process holds every lease and nothing is forwarded.
// A process that takes over a project (the holder stopped, let an idle project go, or lost its lease) reads
// back what is live in it first (ProjectActor.reload). A forward unanswered in time fails with 503 unless
// the lease has moved on meanwhile (then it goes to the new holder): the holder may have died with the
// batch committed or not, and the client's retry is a duplicate at worst. A batch waits longer than the
// lease lives, so a killed holder's batches go to its successor instead of failing.
import { randomUUID } from 'node:crypto';
import type { IngestMeta, IngestOutcome, CounterDelta, PendingLog, ProjectActor } from '../actors/project-actor.ts';
import type { RealtimeSnapshot } from '../actors/realtime-window.ts';
import type { ActorRegistry } from '../actors/registry.ts';
import type { Bus } from './bus.ts';
import { readForwardMessage, readReleasedMessage, type ForwardMessage } from './bus-messages.ts';
import { HttpError, errorCatalogue, type ErrorCode } from './errors.ts';
import type { EnrichedEvent } from './ingest/enrich.ts';
import type { Leases } from './leases.ts';
import type { Logger } from './log.ts';

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

type Pending = { resolve: (value: unknown) => void; reject: (err: unknown) => void; timer?: NodeJS.Timeout };
type Request = Exclude<ForwardMessage, { kind: 'reply' | 'settle-held' }>;
type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'id' | 'from' | 'projectId'> : never) : never;

/** How long a process trusts what it learned of a project's holder before it asks again. */
const HOLDER_CACHE_MS = 2_000;

export function createCluster(opts: {
  actors: ActorRegistry;
  leases: Leases;
  bus: Bus;
  /** Channel names start with it (it names the database the processes share). */
  prefix: string;
  log: Logger;
  /** How long a forwarded read waits for its answer, and a forwarded batch (longer than a lease lives). */
  timeoutMs?: number;
  ingestTimeoutMs?: number;
  /** Leases are renewed this often; this process stops serving its projects once it could not renew them
   *  for `leaseMs` less a margin (another process may hold them by then). */
  renewMs?: number;
  leaseMs?: number;
}): Cluster {
  const { actors, leases, bus, log } = opts;
  const self = leases.self;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const ingestTimeoutMs = opts.ingestTimeoutMs ?? 12_000;
  const leaseMs = opts.leaseMs ?? 10_000;
  const channel = (process: string) => `${opts.prefix}actor:${process}`;
  const held = new Set<string>();
  const holders = new Map<string, { holder: string; until: number }>();
  const pending = new Map<string, Pending>();
  /** This process's handle of each project it holds, with the actor it was made for. */
  const handles = new Map<string, { actor: ProjectActor; handle: ProjectHandle }>();
  /** Actors whose live state is the project's while this process holds its lease: made here while it
   *  held it. One kept for its log ring, or left from a lease this process lost, is not. */
  const current = new WeakSet<ProjectActor>();
  let stopped = false;

  /** This process now holds the project: an actor that was here already and is not current reads back
   *  what went on meanwhile (after writing what it still has queued). Taking a project held already (two
   *  requests acquired it at once) changes nothing: it would read back twice. */
  function take(projectId: string): void {
    if (held.has(projectId)) return;
    held.add(projectId);
    holders.delete(projectId);
    const actor = actors.peek(projectId);
    if (actor && !current.has(actor)) void actor.reload();
  }

  /** The handle of a project this process holds, on its actor (made, with its live state read back, if
   *  there is none): one a project while its actor lives. */
  function heldHandle(projectId: string): ProjectHandle {
    const actor = actors.get(projectId);
    current.add(actor);
    const known = handles.get(projectId);
    if (known?.actor === actor) return known.handle;
    const handle = localHandle(actor);
    handles.set(projectId, { actor, handle });
    return handle;
  }

  /** This process no longer holds these projects: their requests go to whoever holds them now. */
  function lose(projectIds: string[]): void {
    for (const projectId of projectIds) {
      held.delete(projectId);
      const actor = actors.peek(projectId);
      if (actor) current.delete(actor);
    }
  }

  async function holderOf(projectId: string): Promise<string> {
    if (held.has(projectId)) return self;
    const known = holders.get(projectId);
    if (known && known.until > Date.now()) return known.holder;
    const holder = await leases.acquire(projectId);
    if (holder === self) take(projectId);
    else holders.set(projectId, { holder, until: Date.now() + HOLDER_CACHE_MS });
    return holder;
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

  /** Publishes a request to another process and waits for its reply. Unanswered within `ms`, it fails with
   *  what `late` decides; one the bus cannot send fails at once (Unsent). */
  async function ask(
    process: string,
    request: Record<string, unknown> & { id: string },
    ms: number,
    late: () => Promise<unknown>,
  ): Promise<unknown> {
    const waiting: Pending = { resolve: () => {}, reject: () => {} };
    const answer = new Promise<unknown>((resolve, reject) => Object.assign(waiting, { resolve, reject }));
    pending.set(request.id, waiting);
    try {
      await bus.publish(channel(process), request);
    } catch (err) {
      pending.delete(request.id);
      throw new Unsent(err);
    }
    waiting.timer = setTimeout(() => {
      if (pending.delete(request.id)) late().then(waiting.reject, waiting.reject);
    }, ms);
    return answer;
  }

  /** Sends a request to the holder and waits for its answer; a holder that no longer holds the project
   *  answers `moved`, and the request goes once more to whoever holds it now (this process, maybe). */
  async function forward(projectId: string, holder: string, body: RequestBody, retry = true): Promise<unknown> {
    const id = randomUUID();
    // Gone without a word (killed): its lease names it until it expires, and until then the project waits.
    // If the lease has moved on meanwhile, the request goes to whoever holds it now.
    const late = async () => {
      holders.delete(projectId);
      const now = await leases.holder(projectId);
      return now === holder
        ? new HttpError('UNAVAILABLE', `The process that holds project ${projectId} did not answer; try again.`)
        : new Moved('moved');
    };
    try {
      return await ask(
        holder,
        { ...body, id, from: self, projectId },
        body.kind === 'ingest' ? ingestTimeoutMs : timeoutMs,
        late,
      );
    } catch (err) {
      if (err instanceof Moved && retry) {
        holders.delete(projectId);
        const next = await holderOf(projectId);
        if (next === self) return serve(heldHandle(projectId), { ...body, id, from: self, projectId } as Request);
        return forward(projectId, next, body, false);
      }
      if (err instanceof Moved) throw new HttpError('UNAVAILABLE', err.message);
      if (!(err instanceof Unsent)) throw err;
      log.warn('could not forward a request to the process holding its project', { err: err.cause, projectId });
      throw new HttpError(
        'UNAVAILABLE',
        `Project ${projectId} is held by another process, which cannot be reached; try again.`,
      );
    }
  }

  function remoteHandle(projectId: string, holder: string): ProjectHandle {
    return {
      ingest: async (rows, meta) => (await forward(projectId, holder, { kind: 'ingest', rows, meta })) as IngestOutcome,
      log(line, counters = {}) {
        bus
          .publish(channel(holder), { kind: 'log', id: randomUUID(), from: self, projectId, line, counters })
          .catch((err: unknown) =>
            log.warn('could not forward a log line to the process holding its project', { err, projectId }),
          );
      },
      realtime: async (limit) => (await forward(projectId, holder, { kind: 'realtime', limit })) as RealtimeView,
      markInternal: async (visitor, isInternal) =>
        void (await forward(projectId, holder, { kind: 'mark-internal', visitor, isInternal })),
    };
  }

  /** What the holder does with a forwarded request; its answer goes back as the reply's value. */
  async function serve(local: ProjectHandle, m: Request): Promise<unknown> {
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
        return actors.get(m.projectId).settle();
    }
  }

  /** Answers a request on its sender's channel. */
  const replyTo = (m: { id: string; from: string }) => (body: Record<string, unknown>) =>
    bus.publish(channel(m.from), { kind: 'reply', id: m.id, ...body });

  async function answer(m: Request): Promise<void> {
    const reply = replyTo(m);
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
      if (stopped) return await moved();
      if (!held.has(m.projectId)) {
        const holder = await leases.acquire(m.projectId);
        if (holder === self && stopped) await leases.release(m.projectId); // taken while stopping: let it go
        if (holder !== self || stopped) return await moved();
        take(m.projectId);
      }
      const value = await serve(heldHandle(m.projectId), m);
      if (m.kind !== 'log') await reply({ ok: true, value: value ?? null });
    } catch (err) {
      if (m.kind === 'log') return log.warn('a forwarded log line was not written', { err, projectId: m.projectId });
      const known = err instanceof HttpError;
      if (!known) log.error('a forwarded request failed', { err, projectId: m.projectId, kind: m.kind });
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
  async function settleHeld(m: Extract<ForwardMessage, { kind: 'settle-held' }>): Promise<void> {
    const reply = replyTo(m);
    try {
      await Promise.all(
        m.projectIds.filter((projectId) => held.has(projectId)).map((projectId) => actors.peek(projectId)?.settle()),
      );
      await reply({ ok: true, value: null });
    } catch (err) {
      log.error('a read across projects could not apply what this process holds', { err });
      await reply({
        ok: false,
        error: { code: 'INTERNAL', message: 'A process holding projects failed to apply them.' },
      }).catch(() => {});
    }
  }

  /** Asks another process to apply what it holds of these projects; answers whether it did in time. */
  function askSettle(process: string, projectIds: readonly string[]): Promise<boolean> {
    return ask(
      process,
      { kind: 'settle-held', id: randomUUID(), from: self, projectIds },
      timeoutMs,
      async () => null,
    ).then(
      () => true,
      () => false,
    );
  }

  // A process that stops frees its leases and says so: the others forget it as the projects' holder at once.
  const unsubscribeReleased = bus.subscribe(channel('released'), (message) => {
    const m = readReleasedMessage(message);
    if (!m || m.from === self) return;
    for (const projectId of m.projectIds) if (holders.get(projectId)?.holder === m.from) holders.delete(projectId);
  });

  const unsubscribe = bus.subscribe(channel(self), (message) => {
    const m = readForwardMessage(message);
    if (!m) {
      // A request this version cannot read (a rolling deploy, say): its sender hears so now, not after a timeout.
      const r = message as { id?: unknown; from?: unknown; kind?: unknown };
      if (typeof r?.id === 'string' && typeof r.from === 'string' && r.kind !== 'reply' && r.kind !== 'log') {
        bus
          .publish(channel(r.from), {
            kind: 'reply',
            id: r.id,
            ok: false,
            error: { code: 'INTERNAL', message: 'The process holding the project could not read the request.' },
          })
          .catch(() => {});
      }
      log.warn('a forwarded message could not be read', { kind: r?.kind });
      return;
    }
    if (m.kind === 'settle-held') return void settleHeld(m);
    if (m.kind !== 'reply') return void answer(m);
    const p = pending.get(m.id);
    if (!p) return; // answered after its deadline
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.ok) return p.resolve(m.value);
    const e = m.error ?? { code: 'INTERNAL', message: 'The process holding the project failed.' };
    p.reject(e.moved ? new Moved(e.message) : new HttpError(knownCode(e.code), e.message));
  });

  // Leases are renewed well before they expire; one this process lost (Redis was out of reach, or the
  // process paused past the lease) goes to whoever asks next, and this process forwards from then on.
  // Renewals that keep failing (Redis out of reach from here) end with this process letting its projects go
  // before their leases can expire: by then another process may have taken them.
  let renewedAt = Date.now();
  const present = () =>
    leases.present().catch((err: unknown) => log.warn('could not tell the other processes this one is alive', { err }));
  void present();
  const renewal = setInterval(() => {
    void present();
    const projectIds = [...held];
    leases.renew(projectIds).then(
      (lost) => {
        renewedAt = Date.now();
        lose(lost);
        if (lost.length > 0)
          log.warn('lost the lease of projects held here; their requests now go to the new holder', { projects: lost });
      },
      (err: unknown) => {
        log.warn('could not renew project leases', { err });
        if (Date.now() - renewedAt < leaseMs * 0.7 || held.size === 0) return;
        log.warn('project leases not renewed for too long: their requests now go to whoever holds them', {
          projects: [...held],
        });
        lose([...held]);
      },
    );
  }, opts.renewMs ?? 3_000);
  renewal.unref();

  return {
    async project(projectId) {
      if (stopped) throw new HttpError('UNAVAILABLE', 'The server is shutting down.');
      const holder = await holderOf(projectId);
      return holder === self ? heldHandle(projectId) : remoteHandle(projectId, holder);
    },
    async settle(projectId) {
      // Redis out of reach: the read goes on with what this process holds (the holder's last seconds may
      // be missing from it, as when the holder does not answer).
      const holder = held.has(projectId) ? self : await leases.holder(projectId).catch(() => self);
      if (holder === null || holder === self) return actors.peek(projectId)?.settle();
      try {
        await forward(projectId, holder, { kind: 'settle' });
      } catch (err) {
        // The read goes on: it may miss the holder's last few seconds of sessions and visitors.
        log.warn('the process holding a project did not apply its sessions and visitors before a read', {
          err,
          projectId,
        });
      }
    },
    async settleAll(projectIds) {
      const local = Promise.all(projectIds.map((projectId) => actors.peek(projectId)?.settle()));
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
    held: () => [...held],
    dropped(projectId) {
      handles.delete(projectId);
      if (!held.delete(projectId)) return;
      leases.release(projectId).catch((err: unknown) => log.warn('could not free a project lease', { err, projectId }));
    },
    async stop() {
      stopped = true;
      clearInterval(renewal);
      for (const [id, p] of pending)
        (clearTimeout(p.timer),
          p.reject(new HttpError('UNAVAILABLE', 'The server is shutting down.')),
          pending.delete(id));
      // Still listening: requests forwarded meanwhile are told the project moved (their senders try again).
      await actors.stop();
      const projectIds = [...held];
      held.clear();
      await Promise.allSettled(projectIds.map((projectId) => leases.release(projectId)));
      if (projectIds.length > 0) await bus.publish(channel('released'), { from: self, projectIds }).catch(() => {});
      await leases.leave().catch(() => {});
      unsubscribe();
      unsubscribeReleased();
    },
  };
}

/** The holder no longer holds the project (it let it go, or lost its lease). */
class Moved extends Error {}

/** The bus could not send a request: nothing reached the other process. */
class Unsent extends Error {
  constructor(cause: unknown) {
    super('the bus could not send the request', { cause });
  }
}

function knownCode(code: string): ErrorCode {
  return code in errorCatalogue ? (code as ErrorCode) : 'INTERNAL';
}

// Live sessions per visitor for one project: which session an event belongs to, and the session's
// running numbers. Pure and memory-bounded; time comes from event timestamps and `now` arguments.
// It never persists anything: sessions that end (gap, expiry, eviction) are handed back to the caller, and
// for a late event whose session it no longer holds it answers 'lookup' (the caller asks the store).
import { createHash } from 'node:crypto';
import { uniformDwell } from '../src/ingest/bot-score.ts';

export const SESSION_GAP_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 100_000;

export type LiveSession = {
  id: string;
  visitor: string;
  startedAt: number;
  lastActivity: number;
  pageviews: number;
  events: number; // every event except engagement heartbeats
  engagedMs: number; // sum of engagement timeMs
  entryPage: string | null;
  exitPage: string | null;
};

export type AssignInput = {
  visitor: string;
  ts: number;
  name: string;
  path: string | null;
  clientSession?: string | null;
  timeMs?: number | null; // engagement only: time on page the heartbeat reports
};

// `ended` holds every session this call closed: the visitor's previous session when the gap was
// exceeded, and any session evicted to stay within maxSessions. Persist them.
export type Assignment =
  | { sessionId: string; isNew: boolean; session: LiveSession; ended: LiveSession[] }
  | { sessionId: null; isNew: false; session: null; ended: LiveSession[]; reason: UnassignedReason };

// engagement-without-session: a heartbeat without a client session id never opens a session.
export type UnassignedReason = 'engagement-without-session';

/** A stored session a late event may join: what the caller found when place() answered 'lookup'. */
export type StoredSpan = { id: string; startedAt: number; lastActivity: number };

// dwell: the gaps between the session's pageviews in the order they arrived, the last MAX_DWELL of them, and
// whether they are uniform (the bot score's signal, null until there are three); lastViewTs: the latest
// pageview's time; placedAt: the lastActivity the entry had when it last moved to the end of the map.
type Live = {
  session: LiveSession;
  entryTs: number;
  exitTs: number;
  lastViewTs: number;
  dwell: number[];
  uniform: boolean | null;
  placedAt: number;
};

/** Where place() put an event: the live session (read it, do not keep it) and whether the times between its
 *  pageviews are uniform (uniformDwell). */
export type Placed = { readonly session: Readonly<LiveSession>; readonly uniform: boolean | null };

// A session's entry moves to the end of the map once its activity is this far past where it sits (as the
// realtime window's do): eviction then takes the least recently active to within it, and most events
// update the entry where it is (one map lookup instead of three).
const REORDER_MS = 30_000;

export const MAX_DWELL = 8;

// Past this many visitors let go between two clearLetGo() calls, the sessionizer answers "any".
const MAX_LET_GO = 10_000;

// A session as it was stored when the actor that held it stopped: what restore() takes back. entryAt and
// exitAt are the times of its first and latest pageview (null when it had none).
export type StoredSession = LiveSession & { entryAt: number | null; exitAt: number | null };

export const sessionDurationMs = (s: LiveSession) => s.lastActivity - s.startedAt;

export class Sessionizer {
  // Ordered by the last time a visitor's activity advanced (to within REORDER_MS), so the first entry is the
  // eviction victim.
  private readonly live = new Map<string, Live>();
  // A visitor's other sessions placed here (older than the live one: late events, or ended by a newer one),
  // so late events find them: the visitors least recently given one first, at most maxSessions sessions.
  private readonly older = new Map<string, Live[]>();
  private olderCount = 0;
  // Sessions not held here (stored before this sessionizer began, or kept aside and let go to stay bounded)
  // had their last activity before this: only an event within the gap of it may belong to one of them.
  private forgottenUntil = -Infinity;
  private readonly maxSessions: number;
  private readonly lookups: boolean;
  // Visitors whose sessions placed here were let go since clearLetGo() (null: more than MAX_LET_GO): only a
  // late event of one may belong to a session the store holds only once it is written.
  private letGo: Set<string> | null = new Set();
  private opened = false;

  /** `lookups`: the caller can look stored sessions up, so place() may answer 'lookup' for a late event. */
  constructor(options: { maxSessions?: number; lookups?: boolean } = {}) {
    this.maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
    this.lookups = options.lookups ?? false;
  }

  /** Sessions stored before `now` and not restored here (restore() takes back the live ones) ended more
   *  than the gap before it: a later event may belong to one only if it is older than `now`. */
  storedBefore(now: number): void {
    this.forget(now - SESSION_GAP_MS);
  }

  /** Whether a session of the visitor placed here was let go since clearLetGo() (true for any visitor past
   *  MAX_LET_GO of them). */
  wasLetGo(visitor: string): boolean {
    return this.letGo === null || this.letGo.has(visitor);
  }

  clearLetGo(): void {
    this.letGo = new Set();
  }

  /** Holds a stored session the caller found for a late event (before placing it again with `lookedUp`). */
  adopt(visitor: string, stored: StoredSpan): void {
    if (this.live.get(visitor)?.session.id === stored.id || this.findOlder(visitor, (l) => l.session.id === stored.id))
      return;
    this.keepOlder(liveOf(sessionOf(visitor, stored.id, stored.startedAt, stored.lastActivity), null, null));
  }

  get size() {
    return this.live.size;
  }

  get(visitor: string): LiveSession | null {
    const live = this.live.get(visitor);
    return live ? { ...live.session } : null;
  }

  assign(input: AssignInput): Assignment {
    const ended: LiveSession[] = [];
    this.opened = false;
    const placed = this.settle(input, ended, true);
    if (typeof placed === 'string') return unassigned(placed as UnassignedReason, ended);
    // New when the event joined no session held here (it opened one).
    return { sessionId: placed.session.id, isNew: this.opened, session: { ...placed.session }, ended };
  }

  /** Whether the times between the visitor's pageviews in their live session (the last MAX_DWELL) are
   *  uniform, as a script's are (bot-score.ts); null without a live session or with fewer than three. */
  uniformDwell(visitor: string): boolean | null {
    return this.live.get(visitor)?.uniform ?? null;
  }

  /** The session an event belongs to, decided as `assign` decides it, without the copies `assign` hands
   *  back: the live session itself with its dwell verdict, or why there is none. The actor places every
   *  event and needs only the id and the verdict. */
  place(input: AssignInput, lookedUp = false): Placed | UnassignedReason | 'lookup' {
    return this.settle(input, null, lookedUp);
  }

  /** An event with a client session id joins the session that id names, whatever order events come in.
   *  One without joins the visitor's session whose span, widened by the gap, holds its time (the nearest
   *  when two do); held here, or else stored ('lookup': the caller finds it, adopt()s it and places the event
   *  again with `lookedUp`); else it opens one, named after its visitor and time. */
  private settle(
    input: AssignInput,
    ended: LiveSession[] | null,
    lookedUp: boolean,
  ): Live | UnassignedReason | 'lookup' {
    const current = this.live.get(input.visitor);
    if (input.clientSession) {
      const id = sessionIdFor(input.visitor, `c:${input.clientSession}`);
      if (current?.session.id === id) return this.joined(current, input);
      const other = this.findOlder(input.visitor, (l) => l.session.id === id);
      if (other) return this.joined(other, input);
      return this.start(input, id, current, ended);
    }
    if (current && covers(current.session, input.ts)) return this.joined(current, input);
    const nearest = this.nearestOlder(input.visitor, input.ts);
    if (nearest) return this.joined(nearest, input);
    if (!lookedUp && this.lookups && input.ts < this.forgottenUntil + SESSION_GAP_MS) return 'lookup';
    if (input.name === 'engagement') return 'engagement-without-session';
    return this.start(input, sessionIdFor(input.visitor, `t:${input.ts}`), current, ended);
  }

  private joined(live: Live, input: AssignInput): Live {
    if (this.live.get(input.visitor) === live) this.apply(live, input);
    else extend(live, input);
    return live;
  }

  /** Opens session `id`: the visitor's live one when it is their latest, else one kept aside (a late event's). */
  private start(input: AssignInput, id: string, current: Live | undefined, ended: LiveSession[] | null): Live {
    this.opened = true;
    const live = liveOf(sessionOf(input.visitor, id, input.ts, input.ts), null, null);
    if (current && input.ts <= current.session.lastActivity) {
      extend(live, input);
      this.keepOlder(live);
      return live;
    }
    if (current) {
      this.live.delete(input.visitor);
      ended?.push({ ...current.session });
      this.keepOlder(current);
    }
    this.apply(live, input);
    this.live.set(input.visitor, live);
    while (this.live.size > this.maxSessions) {
      const evicted = this.evictOldest();
      ended?.push(evicted);
    }
    return live;
  }

  private findOlder(visitor: string, match: (l: Live) => boolean): Live | undefined {
    return this.older.get(visitor)?.find(match);
  }

  /** The visitor's session kept aside whose widened span holds `ts`, the nearest when several do. */
  private nearestOlder(visitor: string, ts: number): Live | undefined {
    let best: Live | undefined;
    let bestDistance = Infinity;
    for (const l of this.older.get(visitor) ?? []) {
      if (!covers(l.session, ts)) continue;
      const distance = Math.max(0, l.session.startedAt - ts, ts - l.session.lastActivity);
      if (distance < bestDistance) ((best = l), (bestDistance = distance));
    }
    return best;
  }

  private keepOlder(live: Live): void {
    const visitor = live.session.visitor;
    const list = this.older.get(visitor) ?? [];
    this.older.delete(visitor); // to the end: the visitors given one least recently go first
    list.push(live);
    this.older.set(visitor, list);
    this.olderCount++;
    while (this.olderCount > this.maxSessions) {
      const [first, sessions] = this.older.entries().next().value as [string, Live[]];
      this.older.delete(first);
      this.olderCount -= sessions.length;
      for (const l of sessions) this.forget(l.session.lastActivity);
      this.lettingGo(first);
    }
  }

  private lettingGo(visitor: string): void {
    if (this.letGo && this.letGo.add(visitor).size > MAX_LET_GO) this.letGo = null;
  }

  private forget(lastActivity: number): void {
    if (lastActivity > this.forgottenUntil) this.forgottenUntil = lastActivity;
  }

  /** Takes back sessions that were live when the last holder of this project's state stopped (a restart),
   *  so a visitor's next event within the gap joins the session they were in. Sessions past the gap at
   *  `now` are left out, and a visitor's live session here wins over a stored one. The rhythm of their
   *  pageviews (uniformDwell) starts over. Answers how many were taken back. */
  restore(stored: readonly StoredSession[], now: number): number {
    this.storedBefore(now);
    const latest = new Map<string, StoredSession>();
    const others: StoredSession[] = [];
    for (const s of stored) {
      if (now - s.lastActivity > SESSION_GAP_MS || this.live.has(s.visitor)) continue;
      const seen = latest.get(s.visitor);
      if (!seen || s.lastActivity > seen.lastActivity) {
        if (seen) others.push(seen);
        latest.set(s.visitor, s);
      } else others.push(s);
    }
    // A visitor's other sessions still within the gap (a second tab's, say) are held aside for late events.
    for (const { entryAt, exitAt, ...session } of others) this.keepOlder(liveOf(session, entryAt, exitAt));
    // Least recently active first: the map stays in order of activity, so eviction takes the stalest.
    const order = [...latest.values()].sort((a, b) => a.lastActivity - b.lastActivity);
    for (const { entryAt, exitAt, ...session } of order)
      this.live.set(session.visitor, liveOf(session, entryAt, exitAt));
    while (this.live.size > this.maxSessions) this.evictOldest();
    return order.length;
  }

  // Removes and returns sessions idle for more than the gap at `now`.
  expire(now: number): LiveSession[] {
    const out: LiveSession[] = [];
    for (const [visitor, { session }] of this.live) {
      if (now - session.lastActivity > SESSION_GAP_MS) {
        this.live.delete(visitor);
        out.push({ ...session });
      }
    }
    return out;
  }

  // Everything still open (for shutdown: persist, then drop the sessionizer).
  drain(): LiveSession[] {
    const out = [...this.live.values()].map((l) => ({ ...l.session }));
    this.live.clear();
    return out;
  }

  private apply(live: Live, input: AssignInput): void {
    const s = live.session;
    if (input.ts < s.startedAt) s.startedAt = input.ts; // out of order, still within the gap
    if (input.ts > s.lastActivity) {
      s.lastActivity = input.ts;
      if (input.ts - live.placedAt > REORDER_MS) {
        live.placedAt = input.ts;
        this.live.delete(s.visitor); // move to the end: most recent activity
        this.live.set(s.visitor, live);
      }
    }
    if (input.name === 'engagement') {
      if (input.timeMs && input.timeMs > 0) s.engagedMs += input.timeMs;
      return;
    }
    s.events++;
    if (input.name !== 'pageview') return;
    s.pageviews++;
    // A pageview after the latest one ends a dwell; one that arrives out of order tells nothing of it.
    if (input.ts > live.lastViewTs) {
      if (live.lastViewTs > -Infinity) {
        if (live.dwell.length === MAX_DWELL) live.dwell.shift();
        live.dwell.push(input.ts - live.lastViewTs);
        live.uniform = uniformDwell(live.dwell);
      }
      live.lastViewTs = input.ts;
    }
    if (input.path === null) return;
    // Entry and exit follow event time, not arrival order.
    if (input.ts < live.entryTs) {
      live.entryTs = input.ts;
      s.entryPage = input.path;
    }
    if (input.ts >= live.exitTs) {
      live.exitTs = input.ts;
      s.exitPage = input.path;
    }
  }

  private evictOldest(): LiveSession {
    const [visitor, live] = this.live.entries().next().value as [string, Live];
    this.live.delete(visitor);
    this.lettingGo(visitor);
    // Not forgotten (forgottenUntil): that would send every new visitor's first event to the store while the
    // map is full. Past maxSessions live visitors, one that comes back within the gap opens a new session.
    return live.session; // no longer live: nothing changes it now
  }
}

// Deterministic, so replaying a visitor's first event after a restart yields the same id.
export function sessionIdFor(visitor: string, seed: string): string {
  return 's_' + createHash('sha256').update(`${visitor}\n${seed}`).digest('base64url').slice(0, 16);
}

// A live session's state; entryAt and exitAt are its first and latest pageview's times (null: none yet),
// and the rhythm of its pageviews starts from the latest.
function liveOf(session: LiveSession, entryAt: number | null, exitAt: number | null): Live {
  return {
    session,
    entryTs: entryAt ?? Infinity,
    exitTs: exitAt ?? -Infinity,
    lastViewTs: exitAt ?? -Infinity,
    dwell: [],
    uniform: null,
    placedAt: session.lastActivity,
  };
}

/** Whether `ts` lies within the session's span widened by the gap on both sides. */
const covers = (s: LiveSession, ts: number) =>
  ts >= s.startedAt - SESSION_GAP_MS && ts <= s.lastActivity + SESSION_GAP_MS;

function sessionOf(visitor: string, id: string, startedAt: number, lastActivity: number): LiveSession {
  return {
    id,
    visitor,
    startedAt,
    lastActivity,
    pageviews: 0,
    events: 0,
    engagedMs: 0,
    entryPage: null,
    exitPage: null,
  };
}

/** A session kept aside takes a late event's time and counts (its dwell rhythm is the live session's only). */
function extend(live: Live, input: AssignInput): void {
  const s = live.session;
  if (input.ts < s.startedAt) s.startedAt = input.ts;
  if (input.ts > s.lastActivity) s.lastActivity = input.ts;
  if (input.name === 'engagement') {
    if (input.timeMs && input.timeMs > 0) s.engagedMs += input.timeMs;
    return;
  }
  s.events++;
  if (input.name !== 'pageview') return;
  s.pageviews++;
  if (input.path === null) return;
  if (input.ts < live.entryTs) ((live.entryTs = input.ts), (s.entryPage = input.path));
  if (input.ts >= live.exitTs) ((live.exitTs = input.ts), (s.exitPage = input.path));
}

function unassigned(reason: UnassignedReason, ended: LiveSession[]): Assignment {
  return { sessionId: null, isNew: false, session: null, ended, reason };
}

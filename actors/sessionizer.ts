// Live sessions per visitor for one project: which session an event belongs to, and the session's
// running numbers. Pure and memory-bounded; time comes from event timestamps and `now` arguments.
// It never persists anything: sessions that end (gap, expiry, eviction) are handed back to the caller.
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

// engagement-without-session: a heartbeat never opens a session.
// stale: the event is more than the gap older than the visitor's live session (its session is gone).
export type UnassignedReason = 'engagement-without-session' | 'stale';

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

// A session as it was stored when the actor that held it stopped: what restore() takes back. entryAt and
// exitAt are the times of its first and latest pageview (null when it had none).
export type StoredSession = LiveSession & { entryAt: number | null; exitAt: number | null };

export const sessionDurationMs = (s: LiveSession) => s.lastActivity - s.startedAt;

export class Sessionizer {
  // Ordered by the last time a visitor's activity advanced (to within REORDER_MS), so the first entry is the
  // eviction victim.
  private readonly live = new Map<string, Live>();
  private readonly maxSessions: number;

  constructor(options: { maxSessions?: number } = {}) {
    this.maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
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
    const before = this.live.get(input.visitor);
    const placed = this.settle(input, ended);
    if (typeof placed === 'string') return unassigned(placed, ended);
    // New when the event did not join the visitor's live session (there was none, or it had ended).
    return { sessionId: placed.session.id, isNew: placed !== before, session: { ...placed.session }, ended };
  }

  /** Whether the times between the visitor's pageviews in their live session (the last MAX_DWELL) are
   *  uniform, as a script's are (bot-score.ts); null without a live session or with fewer than three. */
  uniformDwell(visitor: string): boolean | null {
    return this.live.get(visitor)?.uniform ?? null;
  }

  /** The session an event belongs to, decided as `assign` decides it, without the copies `assign` hands
   *  back: the live session itself with its dwell verdict, or why there is none. The actor places every
   *  event and needs only the id and the verdict. */
  place(input: AssignInput): Placed | UnassignedReason {
    return this.settle(input, null);
  }

  private settle(input: AssignInput, ended: LiveSession[] | null): Live | UnassignedReason {
    const current = this.live.get(input.visitor);
    let endedId: string | undefined;
    if (current) {
      const s = current.session;
      if (input.ts < s.startedAt - SESSION_GAP_MS) return 'stale';
      if (input.ts - s.lastActivity <= SESSION_GAP_MS) {
        this.apply(current, input);
        return current;
      }
      this.live.delete(input.visitor);
      endedId = s.id;
      ended?.push({ ...s });
    }
    if (input.name === 'engagement') return 'engagement-without-session';

    const live = this.open(input, endedId);
    this.apply(live, input);
    this.live.set(input.visitor, live);
    while (this.live.size > this.maxSessions) {
      const evicted = this.evictOldest();
      ended?.push(evicted);
    }
    return live;
  }

  /** Takes back sessions that were live when the last holder of this project's state stopped (a restart),
   *  so a visitor's next event within the gap joins the session they were in. Sessions past the gap at
   *  `now` are left out, and a visitor's live session here wins over a stored one. The rhythm of their
   *  pageviews (uniformDwell) starts over. Answers how many were taken back. */
  restore(stored: readonly StoredSession[], now: number): number {
    const latest = new Map<string, StoredSession>();
    for (const s of stored) {
      if (now - s.lastActivity > SESSION_GAP_MS || this.live.has(s.visitor)) continue;
      const seen = latest.get(s.visitor);
      if (!seen || s.lastActivity > seen.lastActivity) latest.set(s.visitor, s);
    }
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

  private open(input: AssignInput, endedId: string | undefined): Live {
    let id = input.clientSession
      ? sessionIdFor(input.visitor, `c:${input.clientSession}`)
      : sessionIdFor(input.visitor, `t:${input.ts}`);
    // The client kept its session id across our gap: the new server session needs its own id.
    if (id === endedId) id = sessionIdFor(input.visitor, `c:${input.clientSession}:t:${input.ts}`);
    const session: LiveSession = {
      id,
      visitor: input.visitor,
      startedAt: input.ts,
      lastActivity: input.ts,
      pageviews: 0,
      events: 0,
      engagedMs: 0,
      entryPage: null,
      exitPage: null,
    };
    return liveOf(session, null, null);
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

function unassigned(reason: UnassignedReason, ended: LiveSession[]): Assignment {
  return { sessionId: null, isNew: false, session: null, ended, reason };
}

// What a project actor takes back when it starts while its project is live (after a restart, or on another
// process): the sessions still open, so a visitor's next event within the gap joins the session they were in
// instead of opening another; the last ten minutes of human traffic, replayed into the realtime window; and
// the visitors marked internal, whose later events are internal too. And, for late events whose sessions the
// actor no longer holds, the stored sessions they belong to.
// The sessions table is complete by then: a stopping process checkpoints it, and a killed one's journal is
// applied at start (src/db/fold-journal.ts).
import type { Sql } from 'postgres';
import type { StoredSpan } from '../../actors/sessionizer.ts';
import { MAX_INTERNAL_VISITORS, type LiveState } from '../../actors/project-actor.ts';
import { DEFAULT_MAX_VISITORS, RETAIN_MS } from '../../actors/realtime-window.ts';
import { DEFAULT_MAX_SESSIONS, SESSION_GAP_MS } from '../../actors/sessionizer.ts';
import { query } from './queries.ts';

/** How long ago a live session may have started and still be taken back. Longer ones are a crawler's or a
 *  kiosk's; the bound keeps the read on the recent end of the (project_id, started_at) index. */
export const LIVE_SESSION_MAX_AGE_MS = 24 * 3_600_000;

/** At most this many recent events are replayed: a project busier than that gets its latest ones (the
 *  window keeps at most as many visitors, and older minutes then count fewer pageviews than they had). */
export const RECENT_EVENTS_MAX = DEFAULT_MAX_VISITORS;

type SessionRow = {
  id: string;
  visitor_id: string;
  started_at: Date;
  last_activity: Date;
  pageviews: number;
  events: number;
  entry_page: string | null;
  entry_at: Date | null;
  exit_page: string | null;
  exit_at: Date | null;
};
type EventRow = { visitor_id: string; ts: Date; path: string | null; country: string | null; is_pageview: boolean };

/** The project's sessions active within the gap before `now` (oldest activity first), its human events
 *  of the realtime window's ten minutes (oldest first), and its internal visitors (the most recently seen). */
export async function liveState(sql: Sql, projectId: string, now: number): Promise<LiveState> {
  const since = now - SESSION_GAP_MS;
  const [sessions, events, internal] = await Promise.all([
    query<SessionRow>(sql, 'list_live_sessions', [
      projectId,
      new Date(since),
      new Date(since - LIVE_SESSION_MAX_AGE_MS),
      DEFAULT_MAX_SESSIONS,
    ]),
    query<EventRow>(sql, 'list_recent_human_events', [projectId, new Date(now - RETAIN_MS), RECENT_EVENTS_MAX]),
    query<{ id: string }>(sql, 'list_internal_visitors', [projectId, MAX_INTERNAL_VISITORS]),
  ]);
  return {
    internalVisitors: internal.map((r) => r.id),
    sessions: sessions.map((r) => ({
      id: r.id,
      visitor: r.visitor_id,
      startedAt: r.started_at.getTime(),
      lastActivity: r.last_activity.getTime(),
      pageviews: r.pageviews,
      // A live session counts every event but engagement reports; the row, custom events apart from
      // pageviews (it keeps no count of vitals and errors): a session taken back counts on from those two.
      events: r.pageviews + r.events,
      engagedMs: 0,
      entryPage: r.entry_page,
      exitPage: r.exit_page,
      entryAt: r.entry_at?.getTime() ?? null,
      exitAt: r.exit_at?.getTime() ?? null,
    })),
    recent: events.reverse().map((r) => ({
      visitor: r.visitor_id,
      ts: r.ts.getTime(),
      path: r.path,
      country: r.country,
      isPageview: r.is_pageview,
      human: true,
    })),
  };
}

/** For each late event, the visitor's stored session whose span, widened by the gap, holds its time, or null
 *  (find_covering_sessions.sql): one statement for all of them. */
export async function findCoveringSessions(
  sql: Sql,
  projectId: string,
  wanted: readonly { visitor: string; at: number }[],
): Promise<(StoredSpan | null)[]> {
  const out: (StoredSpan | null)[] = wanted.map(() => null);
  if (wanted.length === 0) return out;
  const rows = await query<{ i: string; id: string; started_at: Date; last_activity: Date }>(
    sql,
    'find_covering_sessions',
    [projectId, wanted.map((w) => w.visitor), wanted.map((w) => new Date(w.at).toISOString()), SESSION_GAP_MS],
  );
  for (const r of rows)
    out[Number(r.i) - 1] = { id: r.id, startedAt: r.started_at.getTime(), lastActivity: r.last_activity.getTime() };
  return out;
}

// Shapes a visitor's stored profile and sessions into the spec's Visitor: visits, active days, the
// median gap between visits, whether they came back within a day, a week and a month. Pure.
import { verdictOf } from '../ingest/bot-score.ts';
import type { VisitorRow, VisitorSessionRow } from '../db/visitors.ts';
import { iso } from './schemas.ts';

const DAY = 86_400_000;
const SIGNALS = ['headless', 'webdriver', 'datacenterAsn', 'pointerEvents', 'uaMismatch', 'uniformDwell'] as const;

export function visitorProfile(
  v: VisitorRow,
  sessions: VisitorSessionRow[],
  topPages: { value: string; pageviews: number }[],
) {
  const starts = sessions.map((s) => s.started_at.getTime()).sort((a, b) => a - b);
  const first = starts[0] ?? v.first_seen.getTime();
  const later = starts.slice(1);
  const gaps = later.map((t, i) => (t - starts[i]!) / DAY);
  return {
    id: v.id,
    firstSeen: iso(v.first_seen),
    lastSeen: iso(v.last_seen),
    sessions: sessions.length,
    pageviews: sessions.reduce((a, s) => a + s.pageviews, 0),
    events: sessions.reduce((a, s) => a + s.events, 0),
    visitCount: sessions.filter((s) => s.pageviews > 0).length,
    daysActive: new Set(starts.map((t) => new Date(t).toISOString().slice(0, 10))).size,
    medianDaysBetweenVisits: median(gaps),
    returnedWithin: {
      day: later.some((t) => t - first <= DAY),
      week: later.some((t) => t - first <= 7 * DAY),
      month: later.some((t) => t - first <= 30 * DAY),
    },
    isInternal: v.is_internal,
    identity: { userId: v.user_id, traits: v.traits },
    experiments: v.experiments,
    geo: {
      country: v.country,
      region: v.region,
      city: v.city,
      postalCode: v.postal_code,
      timezone: v.timezone,
      latitude: v.latitude,
      longitude: v.longitude,
    },
    device: {
      type: v.device,
      browser: v.browser,
      browserVersion: v.browser_version,
      os: v.os,
      osVersion: v.os_version,
      screen: v.screen,
      viewport: v.viewport,
      language: v.language,
      connection: v.connection,
    },
    topPages,
    recentSessions: sessions.slice(0, 10).map((s) => ({
      id: s.id,
      startedAt: iso(s.started_at),
      durationMs: s.last_activity.getTime() - s.started_at.getTime(),
      pageviews: s.pageviews,
      entryPage: s.entry_page,
      exitPage: s.exit_page,
      referrer: s.referrer,
    })),
    bot: {
      score: v.bot_score,
      verdict: verdictOf(v.bot_score),
      signals: Object.fromEntries(SIGNALS.map((k) => [k, v.bot_signals[k] ?? null])),
    },
  };
}

/** The median gap in days between consecutive visits; 0 with fewer than two visits. */
function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// When a read may use the day rollups: whole UTC days that are all closed (before today), no dimension
// filters (the dimension rollups, dims.ts, take filters on their own dimensions), and a
// traffic/environment selection (all twelve are carried). Anything else stays raw.
import type { Environment, Range, Traffic } from '../params.ts';
import type { Scope } from '../filters.ts';

const DAY = 86_400_000;
const TRAFFIC: Traffic[] = ['human', 'bots', 'internal', 'all'];
const ENVIRONMENT: Environment[] = ['production', 'preview', 'all'];

/** The metrics every session-level rollup carries (day totals, entry rows, and with more the page rows). */
export const SESSION_METRICS: ReadonlySet<string> = new Set([
  'visitors',
  'pageviews',
  'events',
  'sessions',
  'bounce_rate',
  'session_duration',
  'pages_per_session',
]);

/** The selection number of 0007_rollups.sql: traffic index × 3 + environment index. */
export const selOf = (traffic: Traffic, environment: Environment) =>
  TRAFFIC.indexOf(traffic) * 3 + ENVIRONMENT.indexOf(environment);

/** The range as UTC day strings [from, to) when the rollups can answer for the scope, else null. */
export function rollupDays(scope: Scope, now = new Date()): { from: string; to: string; sel: number } | null {
  return scope.filters.length > 0 ? null : closedDays(scope, now);
}

/** As rollupDays, whatever the scope's filters: the caller answers for them. */
export function closedDays(scope: Scope, now = new Date()): { from: string; to: string; sel: number } | null {
  if (scope.projectIds.length === 0 || !wholeDays(scope.range)) return null;
  const today = Math.floor(now.getTime() / DAY) * DAY;
  if (scope.range.to.getTime() > today) return null;
  return { from: dayOf(scope.range.from), to: dayOf(scope.range.to), sel: selOf(scope.traffic, scope.environment) };
}

const wholeDays = (r: Range) => r.from.getTime() % DAY === 0 && r.to.getTime() % DAY === 0;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

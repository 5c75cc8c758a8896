// When a read may use the day rollups: whole UTC days, today's included (a range may end inside today:
// see RollupDays), no dimension
// filters (the dimension rollups, dims.ts, take filters on their own dimensions), and a
// traffic/environment selection (all twelve are carried). Anything else stays raw.
import type { Environment, Traffic } from '../params.ts';
import type { Scope } from '../filters.ts';

const DAY = 86_400_000;
const TRAFFIC: Traffic[] = ['human', 'bots', 'internal', 'all'];
const ENVIRONMENT: Environment[] = ['production', 'preview', 'all'];

/** The selection number of 0007_rollups.sql: traffic index × 3 + environment index. */
export const selOf = (traffic: Traffic, environment: Environment) =>
  TRAFFIC.indexOf(traffic) * 3 + ENVIRONMENT.indexOf(environment);

/** UTC day strings [from, to) the rollups read, and for a range that ends inside today, its end
 *  (`liveTo`): today's rows hold today's events up to the last checkpoint, which a read settles first, so
 *  they answer for [today, liveTo) when no event of today lies at or past liveTo (rollupsReady checks). */
export type RollupDays = { from: string; to: string; sel: number; liveTo?: Date };

/** The range as UTC days when the rollups can answer for the scope, else null. */
export function rollupDays(scope: Scope, now = new Date()): RollupDays | null {
  return scope.filters.length > 0 ? null : closedDays(scope, now);
}

/** As rollupDays, whatever the scope's filters: the caller answers for them. */
export function closedDays(scope: Scope, now = new Date()): RollupDays | null {
  if (scope.projectIds.length === 0 || scope.range.from.getTime() % DAY !== 0) return null;
  const today = Math.floor(now.getTime() / DAY) * DAY;
  const to = scope.range.to.getTime();
  const sel = selOf(scope.traffic, scope.environment);
  const from = dayOf(scope.range.from);
  if (to % DAY === 0) return to > today + DAY ? null : { from, to: dayOf(scope.range.to), sel };
  if (to <= today || to > today + DAY) return null;
  return { from, to: dayOf(new Date(today + DAY)), sel, liveTo: scope.range.to };
}

/** As rollupDays, for reads that keep values the day rows do not change with (speed scores) or that
 *  take whole closed days (retention cohorts): ranges that end by the start of today only. */
export function pastDays(scope: Scope, now = new Date()): RollupDays | null {
  const days = rollupDays(scope, now);
  const today = Math.floor(now.getTime() / DAY) * DAY;
  return days && !days.liveTo && Date.parse(`${days.to}T00:00:00Z`) <= today ? days : null;
}

const dayOf = (d: Date) => d.toISOString().slice(0, 10);

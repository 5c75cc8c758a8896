// Which reads are heavy (exports, long ranges): the pipeline makes those take a slot of services.heavyReads
// (src/gate.ts) before they run, and hold it until their answer is written.
import type { Route } from './route.ts';

const DAY = 86_400_000;
/** A range longer than this (or a period of 12mo or all) is a heavy read: its first read builds rollups. */
export const HEAVY_RANGE_DAYS = 92;
const LONG_PERIODS = new Set(['12mo', 'all']);

/** Whether a request is a heavy read: an export (format, or Accept: text/csv), or a long range. */
export function isHeavyRead(route: Route, query: Record<string, unknown>, accept: string | undefined): boolean {
  if (route.method !== 'GET') return false;
  const format = query.format;
  if (format === 'csv' || format === 'json' || format === 'sql') return true;
  if (accept && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept)) return true;
  if (typeof query.period === 'string' && LONG_PERIODS.has(query.period) && !query.from) return true;
  if (typeof query.from === 'string' && typeof query.to === 'string') {
    const span = Date.parse(query.to) - Date.parse(query.from);
    return span > HEAVY_RANGE_DAYS * DAY;
  }
  return false;
}

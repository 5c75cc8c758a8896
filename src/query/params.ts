// The shared read conventions (range, period, traffic, environment, filters) parsed from the query
// string into a typed ReadParams. Pure: `now` is an argument; 'all' is resolved later by range.ts.
import * as v from 'valibot';
import { HttpError, type ErrorDetail } from '../errors.ts';
import { dateTime } from './date-time.ts';
import { isDimension } from './dimensions.ts';

export const periods = ['24h', '7d', '30d', '90d', '12mo', 'all'] as const;
export const trafficKinds = ['human', 'bots', 'internal', 'all'] as const;
export const environments = ['production', 'preview', 'all'] as const;

export type Period = (typeof periods)[number];
export type Traffic = (typeof trafficKinds)[number];
export type Environment = (typeof environments)[number];
export type Range = { from: Date; to: Date };
export type Filter = { dimension: string; value: string; exclude: boolean };
/** A fixed range, or 'all' ending at `to` and starting at the first event (see resolveRange). */
export type Window = { kind: 'fixed'; range: Range } | { kind: 'all'; to: Date };
export type ReadParams = {
  window: Window;
  period: Period | null;
  traffic: Traffic;
  environment: Environment;
  filters: Filter[];
};

/** The query members of the shared conventions; routes spread this into their own object schema. */
export const readQueryEntries = {
  from: v.optional(dateTime),
  to: v.optional(dateTime),
  period: v.optional(v.picklist(periods, `must be one of ${periods.join(', ')}`)),
  traffic: v.optional(v.picklist(trafficKinds, `must be one of ${trafficKinds.join(', ')}`), 'human'),
  environment: v.optional(v.picklist(environments, `must be one of ${environments.join(', ')}`), 'production'),
  filter: v.optional(v.record(v.string(), v.string('must be a single value')), {}),
};
export const readQuerySchema = v.object(readQueryEntries);
export type ReadQuery = v.InferOutput<typeof readQuerySchema>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A read's range starts no earlier than this and spans at most MAX_RANGE_DAYS (docs/limits.md): the longest
 *  retention (3650 days) fits, and no read builds rollups for decades nobody can have data in. */
export const EARLIEST_READ = new Date('2000-01-01T00:00:00Z');
export const MAX_RANGE_DAYS = 3660;

/** Checks what the schema cannot (pairs, order, dimension names) and fixes the window against `now`. */
export function toReadParams(q: ReadQuery, now: Date): ReadParams {
  const problems: ErrorDetail[] = [];
  if ((q.from === undefined) !== (q.to === undefined)) {
    problems.push({ field: q.from ? 'query.to' : 'query.from', message: 'from and to are sent together' });
  } else if (q.from && q.to && q.from.getTime() >= q.to.getTime()) {
    problems.push({ field: 'query.from', message: 'must be before to' });
  } else if (q.from && q.from < EARLIEST_READ) {
    problems.push({ field: 'query.from', message: 'must be 2000-01-01 or later' });
  } else if (q.from && q.to && q.to.getTime() - q.from.getTime() > MAX_RANGE_DAYS * DAY) {
    problems.push({ field: 'query.to', message: `must be at most ${MAX_RANGE_DAYS} days after from` });
  }
  const filters: Filter[] = [];
  for (const [dimension, raw] of Object.entries(q.filter)) {
    const field = `query.filter[${dimension}]`;
    if (!isDimension(dimension)) problems.push({ field, message: 'is not a registered dimension (or prop:<key>)' });
    else if (raw === '' || raw === '!') problems.push({ field, message: 'needs a value (or !value to exclude)' });
    else
      filters.push(
        raw.startsWith('!')
          ? { dimension, value: raw.slice(1), exclude: true }
          : { dimension, value: raw, exclude: false },
      );
  }
  if (problems.length > 0)
    throw new HttpError('VALIDATION_FAILED', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  const fixed = q.from && q.to ? { from: q.from, to: q.to } : null;
  const period = fixed ? null : (q.period ?? '30d');
  const window: Window = fixed ? { kind: 'fixed', range: fixed } : periodWindow(period!, now);
  return { window, period, traffic: q.traffic, environment: q.environment, filters };
}

/** Ranges end at the start of today (UTC); 24h ends at the start of the current hour. */
export function periodWindow(period: Period, now: Date): Window {
  const today = Math.floor(now.getTime() / DAY) * DAY;
  if (period === '24h') {
    const hour = Math.floor(now.getTime() / HOUR) * HOUR;
    return { kind: 'fixed', range: { from: new Date(hour - DAY), to: new Date(hour) } };
  }
  if (period === 'all') return { kind: 'all', to: new Date(today) };
  if (period === '12mo') {
    const to = new Date(today);
    const from = new Date(Date.UTC(to.getUTCFullYear() - 1, to.getUTCMonth(), to.getUTCDate()));
    return { kind: 'fixed', range: { from, to } };
  }
  const days = { '7d': 7, '30d': 30, '90d': 90 }[period];
  return { kind: 'fixed', range: { from: new Date(today - days * DAY), to: new Date(today) } };
}

/** 'all' starts at the start of the UTC day of the first event; without events it is the last day. */
export function resolveRange(window: Window, firstEvent: Date | null): Range {
  if (window.kind === 'fixed') return window.range;
  const start = firstEvent ? Math.floor(firstEvent.getTime() / DAY) * DAY : window.to.getTime() - DAY;
  return { from: new Date(Math.min(start, window.to.getTime() - DAY)), to: window.to };
}

/** The range of the same length just before. */
export const previousRange = (r: Range): Range => ({
  from: new Date(2 * r.from.getTime() - r.to.getTime()),
  to: r.from,
});

/** The filters as the response echoes them: {country: 'GB', page: '!/admin'}. */
export const echoFilters = (filters: Filter[]) =>
  Object.fromEntries(filters.map((f) => [f.dimension, (f.exclude ? '!' : '') + f.value]));

export const rangeView = (r: Range) => ({ from: r.from.toISOString(), to: r.to.toISOString() });

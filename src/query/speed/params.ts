// The speed reads' query parameters (spec "Speed parameters"): parsed with valibot, then checked for what
// a schema cannot say (filters by route, page and country only; hours only over 7 days of the raw window).
import type { Sql } from 'postgres';
import * as v from 'valibot';
import { HttpError, type ErrorDetail } from '../../errors.ts';
import { dateTime } from '../date-time.ts';
import { exportFormats } from '../export/index.ts';
import { environments, periods, toReadParams } from '../params.ts';
import { readScope } from '../scope.ts';
import { rawWindowStart } from './buckets.ts';
import type { Device, SpeedFilter, SpeedSelection } from './distribution.ts';
import { METRICS, type MetricName } from './score.ts';

const devices = ['mobile', 'desktop', 'all'] as const;
const percentiles = ['50', '75', '90', '95', '99'] as const;
const list = (xs: readonly string[]) => `must be one of ${xs.join(', ')}`;

export const speedQuery = v.object({
  from: v.optional(dateTime),
  to: v.optional(dateTime),
  period: v.optional(v.picklist(periods, list(periods))),
  environment: v.optional(v.picklist(environments, list(environments)), 'production'),
  filter: v.optional(v.record(v.string(), v.string('must be a single value')), {}),
  device: v.optional(v.picklist(devices, list(devices)), 'all'),
  interval: v.optional(v.picklist(['day', 'hour'], 'must be day or hour'), 'day'),
  group: v.optional(v.picklist(['route', 'path'], 'must be route or path'), 'route'),
  percentile: v.optional(v.pipe(v.picklist(percentiles, list(percentiles)), v.transform(Number)), '75'),
  metric: v.optional(v.picklist(METRICS, list(METRICS))),
  minShare: v.optional(
    v.pipe(v.string(), v.regex(/^(0(\.\d{1,9})?|1(\.0{1,9})?)$/, 'must be a number from 0 to 1'), v.transform(Number)),
    '0.005',
  ),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, 'must be an integer from 1 to 100 (1000 with format)'),
      v.transform(Number),
    ),
  ),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  format: v.optional(v.picklist(exportFormats, list(exportFormats))),
});
export type SpeedQuery = v.InferOutput<typeof speedQuery>;

const FILTERABLE = ['route', 'page', 'country'] as const;
const DAY = 86_400_000;

/** The selection a speed read covers; `all` starts at the first event of the projects. */
export async function speedSelection(
  sql: Sql,
  q: SpeedQuery,
  projectIds: string[],
  now: Date,
): Promise<SpeedSelection> {
  const filters = speedFilters(q.filter);
  const params = toReadParams({ ...q, traffic: 'human', filter: {} }, now);
  const range = (await readScope(sql, projectIds, params)).current.range;
  return { projectIds, range, environment: q.environment, bots: 'human', device: q.device as Device, filters };
}

function speedFilters(raw: Record<string, string>): SpeedFilter[] {
  const problems: ErrorDetail[] = [];
  const filters: SpeedFilter[] = [];
  for (const [dimension, value] of Object.entries(raw)) {
    const field = `query.filter[${dimension}]`;
    if (!(FILTERABLE as readonly string[]).includes(dimension))
      problems.push({ field, message: 'speed reads filter by route, page and country only' });
    else if (value === '' || value === '!') problems.push({ field, message: 'needs a value (or !value to exclude)' });
    else
      filters.push({
        dimension: dimension as SpeedFilter['dimension'],
        value: value.startsWith('!') ? value.slice(1) : value,
        exclude: value.startsWith('!'),
      });
  }
  if (problems.length > 0) throw invalid(problems);
  return filters;
}

/** speed/timeseries and speed/elements name their metric. */
export function requiredMetric(q: SpeedQuery): MetricName {
  if (q.metric) return q.metric;
  throw invalid([{ field: 'query.metric', message: `is required: ${METRICS.join(', ')}` }]);
}

/** Hours exist only for raw samples: at most 7 days, all inside the raw window. */
export function checkInterval(sel: SpeedSelection, interval: 'day' | 'hour', now: Date): void {
  if (interval !== 'hour') return;
  if (sel.range.to.getTime() - sel.range.from.getTime() > 7 * DAY)
    throw invalid([{ field: 'query.interval', message: 'hour covers at most 7 days' }]);
  if (sel.range.from < rawWindowStart(now))
    throw invalid([{ field: 'query.interval', message: 'hour covers only the raw samples of the last 30 days' }]);
}

/** limit 1–100 (default 20); with format up to 1000 is accepted, and every row is exported anyway. */
export function speedLimit(q: SpeedQuery, exporting: boolean): number {
  const limit = q.limit ?? 20;
  if (limit < 1 || limit > (exporting ? 1000 : 100))
    throw invalid([{ field: 'query.limit', message: `must be an integer from 1 to ${exporting ? 1000 : 100}` }]);
  return limit;
}

const invalid = (problems: ErrorDetail[]) =>
  new HttpError('VALIDATION_FAILED', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);

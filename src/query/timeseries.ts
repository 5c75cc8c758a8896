// Timeseries: one metric per bucket (hour, day, week from Monday, month; UTC), empty buckets zero via
// generate_series. Session metrics put a session in the bucket of its first event in range, so
// sessions (like pageviews and events) sum over buckets to the statistic block's value.
import type { PendingQuery, Sql } from 'postgres';
import { HttpError } from '../errors.ts';
import * as v from 'valibot';
import type { Fragment } from './dimensions.ts';
import { visitorKeySql, whereSql, type Scope } from './filters.ts';
import { builtInMetrics, checkConversion, groupedSql, isMetric, metricNamesHint, parseMetric } from './metrics.ts';
import type { Range } from './params.ts';
import type { ReadScope } from './scope.ts';
import { sessionsSql } from './stats.ts';
import { rollupTimeseriesAgg } from './rollup/timeseries.ts';

/** The built-in names; `sum:prop.<key>` and `avg:prop.<key>` are accepted too (see metricSchema). */
export const timeseriesMetrics = builtInMetrics;
export const metricSchema = v.pipe(v.string(), v.check(isMetric, `must be one of ${metricNamesHint}`));
export const intervals = ['hour', 'day', 'week', 'month'] as const;
export type TimeseriesMetric = string;
export type Interval = (typeof intervals)[number];
export type Point = { bucket: string; value: number; previous?: number };
type BucketRow = { bucket: Date; value: number };

const MAX_BUCKETS = 10_000;
const HOUR = 3_600_000;

/** Hour for ranges of 24 hours or less, day beyond. */
export const defaultInterval = (r: Range): Interval =>
  r.to.getTime() - r.from.getTime() <= 24 * HOUR ? 'hour' : 'day';

export async function readTimeseries(
  sql: Sql,
  scope: ReadScope,
  metric: TimeseriesMetric,
  interval: Interval,
  compare: boolean,
): Promise<Point[]> {
  checkBuckets(scope.current.range, interval);
  checkConversion([parseMetric(metric)!], scope.current, 'query.metric');
  const [current, previous] = await Promise.all([
    runTimeseries(sql, scope.current, metric, interval),
    compare ? runTimeseries(sql, scope.previous, metric, interval) : Promise.resolve(null),
  ]);
  // Buckets pair by position: the previous range has the same length, so the same count (±1 at a seam).
  return current.map((r, i) => ({
    bucket: r.bucket.toISOString(),
    value: r.value,
    ...(previous ? { previous: previous[i]?.value ?? 0 } : {}),
  }));
}

export async function runTimeseries(
  sql: Sql,
  scope: Scope,
  metric: TimeseriesMetric,
  interval: Interval,
): Promise<BucketRow[]> {
  const rolled = scope.projectIds.length === 0 ? null : await rollupTimeseriesAgg(sql, scope, metric, interval);
  return timeseriesSql(sql, scope, metric, interval, rolled?.agg ?? null);
}

/** `agg` (bucket, value) defaults to the raw aggregate over events; the rollups pass their own. */
export function timeseriesSql(
  sql: Sql,
  scope: Scope,
  metric: TimeseriesMetric,
  interval: Interval,
  agg: Fragment | null = null,
): PendingQuery<BucketRow[]> {
  const { from, to } = scope.range;
  agg ??=
    scope.projectIds.length === 0
      ? sql`select null::timestamp as bucket, 0 as value where false`
      : metricSql(sql, scope, metric, interval);
  return sql<BucketRow[]>`
    with buckets as (
      select generate_series(date_trunc(${interval}, ${from}::timestamptz at time zone 'UTC'),
        (${to}::timestamptz at time zone 'UTC') - interval '1 microsecond', ${'1 ' + interval}::interval) as bucket
    ), agg as (${agg})
    select b.bucket at time zone 'UTC' as bucket, coalesce(a.value, 0)::float8 as value
    from buckets b left join agg a on a.bucket = b.bucket
    order by b.bucket`;
}

function metricSql(sql: Sql, scope: Scope, metric: TimeseriesMetric, interval: Interval): Fragment {
  const eventBucket = sql`date_trunc(${interval}, e.ts at time zone 'UTC')`;
  const fromEvents = (value: Fragment) =>
    sql`select ${eventBucket} as bucket, ${value} as value from events e where ${whereSql(sql, scope)} group by 1`;
  const fromSessions = (value: Fragment) =>
    sql`with s as (${sessionsSql(sql, scope)}) select date_trunc(${interval}, s.first_ts at time zone 'UTC') as bucket, ${value} as value from s group by 1`;
  switch (metric) {
    case 'pageviews':
      return fromEvents(sql`count(*) filter (where e.name = 'pageview')`);
    case 'events':
      return fromEvents(sql`count(*) filter (where e.name <> 'engagement')`);
    case 'visitors':
      // The (bucket, visitor) pairs grouped first, then counted per bucket: two hash aggregates, where
      // count(distinct) sorted every event of the range (half the read over a day of 140k events by hour).
      return sql`
        select v.bucket, count(v.visitor) as value from (
          select ${eventBucket} as bucket, ${visitorKeySql(sql, scope)} as visitor from events e
          where ${whereSql(sql, scope)} and e.name <> 'engagement' group by 1, 2
        ) v group by 1`;
    case 'sessions':
      return fromSessions(sql`count(*)`);
    case 'bounce_rate':
      return fromSessions(sql`avg((s.pageviews = 1 and s.custom = 0)::int)`);
    case 'session_duration':
      return fromSessions(sql`avg(s.duration_ms)`);
    case 'pages_per_session':
      return fromSessions(sql`sum(s.pageviews)::float8 / count(*)`);
    // time_on_page, scroll_depth, conversion_rate, sum:prop.<key>, avg:prop.<key>: the metric registry.
    default:
      return sql`select g.key as bucket, g.values[1] as value from (${groupedSql(sql, scope, eventBucket, [parseMetric(metric)!])}) g`;
  }
}

const approxMs: Record<Interval, number> = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR, month: 28 * 24 * HOUR };

function checkBuckets(r: Range, interval: Interval) {
  if ((r.to.getTime() - r.from.getTime()) / approxMs[interval] <= MAX_BUCKETS) return;
  throw new HttpError(
    'VALIDATION_FAILED',
    `query.interval: ${interval} gives more than ${MAX_BUCKETS} buckets for this range`,
    [{ field: 'query.interval', message: `more than ${MAX_BUCKETS} buckets; use a longer interval` }],
  );
}

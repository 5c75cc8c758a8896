// Timeseries buckets (day, week, month) from the day rollups, the range's raw part (segments.ts) from
// events: the `agg` fragment that timeseries.ts joins to its buckets. Under filters, visitors, pageviews
// and events from the dimension rollups (dims.ts). Null when the rollups cannot answer: hours, other
// metrics, other filters, a range without a built day.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import { hasRawPart, planRange, rawCtes, rolledDaysSql } from './segments.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { SESSION_METRICS } from './eligible.ts';
import { rollupFilteredTimeseriesAgg } from './dims.ts';
import { parseMetric } from '../metrics.ts';

export async function rollupTimeseriesAgg(
  sql: Sql,
  scope: Scope,
  metric: string,
  interval: string,
): Promise<{ agg: Fragment } | null> {
  // Wrapped: a fragment is a thenable, and an async function would run it instead of returning it.
  if (interval === 'hour' || !SESSION_METRICS.has(metric)) return null;
  if (scope.filters.length > 0) return rollupFilteredTimeseriesAgg(sql, scope, parseMetric(metric)!, interval);
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const raw = hasRawPart(days);
  const bucket = (ts: Fragment) => sql`date_trunc(${interval}, ${ts})`;
  const sessions = sql`(coalesce(t.sessions, 0) + coalesce(f.sessions, 0))`;
  const value = {
    pageviews: sql`t.pageviews::float8`,
    events: sql`t.events::float8`,
    visitors:
      interval === 'day'
        ? sql`t.visitors::float8`
        : sql`(select count(*) from (
        select project_id, visitor_hash from rollup_day_visitors r
        where ${rolledDaysSql(sql, scope, days, 'r')} and sel_mask & ${1 << days.sel} <> 0 and ${bucket(sql`day::timestamp`)} = t.bucket
        ${raw ? sql`union select project_id, h from raw_hashes where ${bucket(sql`day::timestamp`)} = t.bucket` : sql`group by 1, 2`}) x)::float8`,
    sessions: sql`${sessions}::float8`,
    bounce_rate: sql`case when ${sessions} > 0 then ((coalesce(t.bounces, 0) + coalesce(f.bounces, 0))::numeric / ${sessions}::numeric)::float8 end`,
    session_duration: sql`case when ${sessions} > 0 then ((coalesce(t.duration_ms, 0) + coalesce(f.duration_ms, 0)) / ${sessions}::numeric)::float8 end`,
    pages_per_session: sql`case when ${sessions} > 0 then (coalesce(t.pageviews, 0) + coalesce(f.pageviews, 0))::float8 / ${sessions}::float8 end`,
  }[metric]!;
  const needsFix = !['pageviews', 'events', 'visitors'].includes(metric);
  const rawRows = !raw
    ? sql``
    : sql`union all
        select d.day, coalesce(v.visitors, 0), d.sessions, d.pageviews, d.events, d.bounces, d.duration_ms
        from raw_days d left join (select project_id, day, count(*) as visitors from raw_hashes group by 1, 2) v using (project_id, day)`;
  return {
    agg: sql`
    with ${raw ? sql`${rawCtes(sql, scope, days)},` : sql``}
    ${
      needsFix
        ? sql`${splitCtes(sql, scope, days, raw)}, fix as (
      select c.bucket, sum(c.sessions) as sessions, sum(c.pageviews) as pageviews, sum(c.bounces) as bounces, sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, bucket)}) c group by 1
    ),`
        : sql`fix as (select null::timestamp as bucket, 0 as sessions, 0 as pageviews, 0 as bounces, 0::numeric as duration_ms where false),`
    }
    t as (
      select ${bucket(sql`day::timestamp`)} as bucket, sum(visitors) as visitors, sum(sessions) as sessions, sum(pageviews) as pageviews,
        sum(events) as events, sum(bounces) as bounces, sum(duration_ms) as duration_ms
      from (
        select day, visitors, sessions, pageviews, events, bounces, duration_ms from rollup_day_totals r
        where ${rolledDaysSql(sql, scope, days, 'r')} and r.sel = ${days.sel}
        ${rawRows}
      ) x group by 1
    )
    select t.bucket, ${value} as value from t left join fix f on f.bucket = t.bucket`,
  };
}

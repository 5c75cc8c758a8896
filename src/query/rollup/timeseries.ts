// Timeseries buckets (day, week, month) from the day rollups, the range's raw part (segments.ts) from
// events: the `agg` fragment that timeseries.ts joins to its buckets. Null when the rollups cannot answer:
// hours, other metrics, other filters, a range without a built day. Under filters, visitors, pageviews
// and events from the dimension rollups (dims.ts), the session metrics from the session facts per set of
// values (set-sessions.ts).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import { eachProject, hasRawPart, planRange, rawCtes, rolledDaysSql } from './segments.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { SESSION_METRICS } from './eligible.ts';
import { rollupFilteredTimeseriesAgg } from './dims.ts';
import { parseMetric } from '../metrics.ts';
import { rollupFilteredSessionAgg } from './set-sessions.ts';
import { VALUE_ROW_METRICS } from './value-rows.ts';

export async function rollupTimeseriesAgg(
  sql: Sql,
  scope: Scope,
  metric: string,
  interval: string,
): Promise<{ agg: Fragment } | null> {
  // Wrapped: a fragment is a thenable, and an async function would run it instead of returning it.
  if (interval === 'hour' || !SESSION_METRICS.has(metric)) return null;
  if (scope.filters.length > 0 && scope.projectIds.length > 1) return perProjectSeries(sql, scope, metric, interval);
  if (scope.filters.length > 0)
    return VALUE_ROW_METRICS.has(metric)
      ? rollupFilteredTimeseriesAgg(sql, scope, parseMetric(metric)!, interval)
      : filteredSessionSeries(sql, scope, metric, interval);
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

/**
 * Under filters over several projects, each project's series from its own rows, one project after another
 * (segments.ts eachProject): visitors, pageviews, events and sessions add up bucket by bucket (visitors
 * of different projects are different visitors), and the ratios divide the sums of their parts. A project without events in the range adds nothing; null when another cannot answer.
 */
async function perProjectSeries(
  sql: Sql,
  scope: Scope,
  metric: string,
  interval: string,
): Promise<{ agg: Fragment } | null> {
  const ratio = RATIOS[metric];
  // Wrapped: a fragment is a thenable, which the async read would run instead of return.
  const each = await eachProject(sql, scope, async (one) => {
    const found = ratio
      ? (await rollupFilteredSessionAgg(sql, one, (ts) => sql`date_trunc(${interval}, ${ts})`))?.rows
      : (await rollupTimeseriesAgg(sql, one, metric, interval))?.agg;
    return found ? { part: found } : null;
  });
  if (!each) return null;
  const parts = [...each.values()].flatMap((p) => (p ? [p.part] : []));
  if (parts.length === 0) return { agg: sql`select null::timestamp as bucket, null::float8 as value where false` };
  const all = parts.map((p) => sql`select * from (${p}) p`).reduce((a, b) => sql`${a} union all ${b}`);
  if (!ratio) return { agg: sql`select x.bucket, sum(x.value)::float8 as value from (${all}) x group by 1` };
  return {
    agg: sql`
    select g.bucket, ${ratio(sql)} as value from (
      select x.bucket, sum(x.sessions) as sessions, sum(x.pageviews) as pageviews, sum(x.bounces) as bounces,
        sum(x.duration_ms) as duration_ms
      from (${all}) x group by 1
    ) g`,
  };
}

/** A ratio of session sums `g` per bucket, as the unfiltered buckets above divide. */
const RATIOS: Partial<Record<string, (sql: Sql) => Fragment>> = {
  bounce_rate: (sql) => sql`case when g.sessions > 0 then (g.bounces::numeric / g.sessions::numeric)::float8 end`,
  session_duration: (sql) => sql`case when g.sessions > 0 then (g.duration_ms / g.sessions::numeric)::float8 end`,
  pages_per_session: (sql) => sql`case when g.sessions > 0 then g.pageviews::float8 / g.sessions::float8 end`,
};

/** A session metric by day, week or month under filters on the nineteen dimensions of the value rows, from
 *  the session facts per set of values (set-sessions.ts). */
async function filteredSessionSeries(
  sql: Sql,
  scope: Scope,
  metric: string,
  interval: string,
): Promise<{ agg: Fragment } | null> {
  const found = await rollupFilteredSessionAgg(sql, scope, (ts) => sql`date_trunc(${interval}, ${ts})`);
  if (!found) return null;
  const value = metric === 'sessions' ? sql`g.sessions::float8` : RATIOS[metric]?.(sql);
  return value ? { agg: sql`select g.bucket, ${value} as value from (${found.rows}) g` } : null;
}

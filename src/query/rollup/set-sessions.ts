// The statistic block under filters on the visitor-level and acquisition dimensions, from the session facts
// per set of values (0089, sql/queries/build_rollup_set_sessions.sql): a session under a filter is its
// events that match (stats.ts sessionsSql), and a session-day whose events share one class and one set is
// all in or all out, so its day's cells of the matching sets sum it; the few that mix sets are listed and
// counted from their events (through the session index), and the sessions that cross midnight are made
// whole by the split-session correction, under the filters. The part of the range the cells do not hold
// (a day folded since they were counted, a day with marks, today under traffic: segments.ts) is counted
// from its events under the filters. Distinct visitors come from the dimension rollups (dims.ts).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, whereSql, type Scope } from '../filters.ts';
import type { Filter } from '../params.ts';
import type { StatsRow } from '../stats.ts';
import { ACQUISITION_DIMENSIONS, ROLLUP_DIMENSIONS, VISITOR_DIMENSIONS, rollupFilteredVisitors } from './dims.ts';
import { hasRawPart, planRange, rawCtes, type Plan } from './segments.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { selectionSql } from './value-rows.ts';

/** The statistic block's row under the scope's filters, or null when these rows cannot answer (a filter
 *  on another dimension, several projects, no whole day of the range counted). */
export async function rollupFilteredStats(sql: Sql, scope: Scope): Promise<StatsRow | null> {
  const sessions = await rollupFilteredSessionAgg(sql, scope, () => sql`null::timestamp`);
  if (!sessions) return null;
  const visitors = await rollupFilteredVisitors(sql, scope);
  if (visitors === null) return null;
  const [row] = await sql<StatsRow[]>`
    select ${visitors}::int as visitors, coalesce(sum(g.sessions), 0)::int as sessions,
      coalesce(sum(g.pageviews), 0)::int as pageviews, coalesce(sum(g.bounces), 0)::int as bounces,
      coalesce(sum(g.duration_ms), 0)::float8 as duration_ms
    from (${sessions.rows}) g`;
  return row!;
}

/**
 * Rows (bucket, sessions, pageviews, bounces, duration_ms) of the sessions under the scope's filters, per
 * `bucket` of a timestamp (without time zone, UTC; a constant for the whole range): the rolled days'
 * cells and mixed sessions, the raw part, and the split-session correction, which puts a session that
 * crosses midnight whole in the bucket of its first event. Null when these rows cannot answer.
 */
export async function rollupFilteredSessionAgg(
  sql: Sql,
  scope: Scope,
  bucket: (ts: Fragment) => Fragment,
): Promise<{ rows: Fragment } | null> {
  if (scope.projectIds.length !== 1 || scope.filters.length === 0) return null;
  if (scope.filters.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const plan = await planRange(sql, scope, { setSessions: true });
  if (!plan) return null;
  const project = scope.projectIds[0]!;
  const raw = hasRawPart(plan);
  // Visitor-level filters alone read the smaller cells, and only the sessions mixed in those values.
  const visitorLevel = scope.filters.every((f) => VISITOR_DIMENSIONS.has(f.dimension));
  return {
    rows: sql`
    with ${raw ? sql`${rawCtes(sql, scope, plan, true)},` : sql``} ${splitCtes(sql, scope, plan, raw, true)},
    fix as (
      select c.bucket, sum(c.sessions) as sessions, sum(c.pageviews) as pageviews, sum(c.bounces) as bounces,
        sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, bucket)}) c group by 1
    ), mixed as (
      select m.day, e.session_id, min(e.ts) as first_ts, max(e.ts) as last_ts,
        count(*) filter (where e.name = 'pageview') as pageviews,
        count(*) filter (where e.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
        count(*) filter (where e.name <> 'engagement') as active
      from rollup_day_mixed_sessions m
      join events e on e.project_id = m.project_id and e.session_id = m.session_id
        and e.ts >= (m.day::timestamp at time zone 'UTC') and e.ts < ((m.day + 1)::timestamp at time zone 'UTC')
      where m.project_id = ${project} and m.day = any(${plan.rolled}::date[]) ${visitorLevel ? sql`and m.dim_mixed` : sql``}
        and ${whereSql(sql, scope)}
      group by m.day, e.session_id
    ), t as (
      select ${bucket(sql`x.day::timestamp`)} as bucket, sum(x.sessions) as sessions, sum(x.pageviews) as pageviews,
        sum(x.bounces) as bounces, sum(x.duration_ms) as duration_ms
      from (
        ${cellsSql(sql, project, plan, scope.filters, visitorLevel)}
        union all
        select day, count(*), sum(pageviews), count(*) filter (where pageviews = 1 and custom = 0),
          sum(extract(epoch from last_ts - first_ts) * 1000)
        from mixed where active > 0 group by day
        ${raw ? sql`union all select day, sessions, pageviews, bounces, duration_ms from raw_days` : sql``}
      ) x group by 1
    )
    select t.bucket, t.sessions + coalesce(f.sessions, 0) as sessions, t.pageviews + coalesce(f.pageviews, 0) as pageviews,
      t.bounces + coalesce(f.bounces, 0) as bounces, t.duration_ms + coalesce(f.duration_ms, 0) as duration_ms
    from t left join fix f on f.bucket is not distinct from t.bucket`,
  };
}

/** The cells of the rolled days under the filters: the visitor-level sets' own (visitor-level filters
 *  alone), or the crossed ones, each family's sets selected by its filters. The sets are aliased `e`, so the
 *  dimension and filter SQL of the events table applies to them. */
function cellsSql(sql: Sql, project: string, plan: Plan, filters: Filter[], visitorLevel: boolean): Fragment {
  const sets = (table: string, dimensions: Set<string>) =>
    sql`select e.id from ${sql(table)} e
      where e.project_id = ${project} and ${filtersSql(
        sql,
        filters.filter((f) => dimensions.has(f.dimension)),
      )}`;
  const days = sql`c.project_id = ${project} and c.day = any(${plan.rolled}::date[]) and ${selectionSql(sql, plan, 'c')}`;
  if (visitorLevel)
    return sql`
      select c.day, c.sessions, c.pageviews, c.bounces, c.duration_ms from rollup_day_dim_sessions c
      where ${days} and c.set_id in (${sets('rollup_dim_sets', VISITOR_DIMENSIONS)})`;
  return sql`
    select c.day, c.sessions, c.pageviews, c.bounces, c.duration_ms from rollup_day_cross_sessions c
    where ${days} and c.dim_set_id in (${sets('rollup_dim_sets', VISITOR_DIMENSIONS)})
      and c.acq_set_id in (${sets('rollup_acq_sets', ACQUISITION_DIMENSIONS)})`;
}

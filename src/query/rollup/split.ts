// The correction for sessions with events on several days of a range: the day rollups count such a
// session once per day (clipped to the day); this recomputes those few sessions from their events and
// yields, per bucket, what to add: the whole session in the bucket of its first event, minus its days.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, whereSql, type Scope } from '../filters.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';

/**
 * Rows (project_id, bucket, sessions, pageviews, bounces, duration_ms): deltas to the summed day rows. `bucket`
 * maps a timestamp (without time zone, UTC) to its bucket; for the whole range pass a constant.
 * Which sessions: those the day builds listed as split in the range's days (a superset is harmless:
 * a session on one day only adds and subtracts the same numbers).
 */
export function splitCorrectionSql(sql: Sql, bucket: (ts: Fragment) => Fragment): Fragment {
  return sql`
    select x.project_id, x.bucket, sum(x.sessions)::int as sessions, sum(x.pageviews)::bigint as pageviews, sum(x.bounces)::int as bounces,
      coalesce(sum(x.duration_ms), 0) as duration_ms
    from (
      select w.project_id, ${bucket(sql`w.first_ts at time zone 'UTC'`)} as bucket, 1 as sessions, w.pageviews, (w.pageviews = 1 and w.custom = 0)::int as bounces,
        extract(epoch from w.last_ts - w.first_ts) * 1000 as duration_ms
      from split_whole w where w.active > 0
      union all
      select d.project_id, ${bucket(sql`d.day::timestamp`)}, -1, -d.pageviews, -((d.pageviews = 1 and d.custom = 0)::int),
        -(extract(epoch from d.last_ts - d.first_ts) * 1000)
      from split_days d where d.active > 0
    ) x group by 1, 2`;
}

/** The CTEs split_days (per session and day) and split_whole (per session) the correction reads. With
 *  `raw`, the sessions of the range's raw part listed as split too (raw_split of segments.ts rawCtes). With
 *  `filtered`, each session is its events under the scope's filters (the day rows were counted so). With
 *  `value` (a dimension's SQL over the events aliased `e`), split_days also carries `keys`: the values of
 *  each day's non-engagement events. */
export function splitCtes(
  sql: Sql,
  scope: Scope,
  days: { from: string; to: string },
  raw = false,
  filtered = false,
  value: Fragment | null = null,
): Fragment {
  // Under filters each session's events are looked up by its key (OFFSET 0 keeps the subquery a lookup
  // per session): with a filter on an indexed column (the event name) the planner read every matching
  // event of the range instead and hashed them against the few hundred sessions, 270 of a read's 290 ms
  // under event=signup over 30 days at 10M events.
  const byKey = sql`split_ids i cross join lateral (
      select * from events x
      where x.project_id = i.project_id and x.session_id = i.session_id
        and x.ts >= ${scope.range.from} and x.ts < ${scope.range.to}
      offset 0) e`;
  return sql`
    split_ids as (
      select project_id, session_id from rollup_day_split_sessions
      where project_id = any(${scope.projectIds}) and day >= ${days.from}::date and day < ${days.to}::date
      ${raw ? sql`union select project_id, session_id from raw_split` : sql`group by 1, 2`}
    ), split_days as materialized (
      select e.project_id, e.session_id, (e.ts at time zone 'UTC')::date as day, min(e.ts) as first_ts, max(e.ts) as last_ts,
        count(*) filter (where e.name = 'pageview') as pageviews,
        count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
        count(*) filter (where e.name <> 'engagement') as active
        ${value ? sql`, array_agg(distinct ${value}) filter (where e.name <> 'engagement' and ${value} is not null) as keys` : sql``}
      from ${filtered ? byKey : sql`events e join split_ids i on i.project_id = e.project_id and i.session_id = e.session_id`}
      where ${(filtered ? whereSql : baseWhereSql)(sql, scope)}
      group by 1, 2, 3
    ), split_whole as (
      select project_id, session_id, min(first_ts) as first_ts, max(last_ts) as last_ts, sum(pageviews) as pageviews,
        sum(custom) as custom, sum(active) as active
      from split_days group by 1, 2
    )`;
}

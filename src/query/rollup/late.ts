// The share of late events in a built day (mark_rollup_days_stale.sql: a flush marks each of a few
// events it writes into a past day). The day's rollup rows stay as built, without those events (every
// build statement leaves out the events whose marks it sees), and a read adds their share itself, so a
// trickle of late events into yesterday costs a read a few indexed lookups, not the day's events:
// - Rows counted per event (pageviews, events, and visitors as sets of hashes: the value rows of dims,
//   acquisition, crossed filters, props and event names) add the marked events themselves.
// - Rows counted per session (sessions, bounces, duration) change with every event of a session: each
//   session-day a late event touches is counted now and as the rollup counted it, and the difference added
//   (segments.ts rawCtes: raw_sd's w). A session whose marked events all follow what the rows hold of it
//   (a live session going on) is taken from that held state (0086) plus its marked events; any other is
//   recounted from its events, with and without the marked ones.
// - Distinct visitors add the late events' visitors the day's rollup does not hold.
// A session mark (a session stretched into the day by events of another day) changes no row of the
// day: its events are the same, and the split-session list of the day that holds the new events names it.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, whereSql, type Scope } from '../filters.ts';
import type { Plan } from './segments.ts';

/** The late events of the plan's late days, under the scope's projects, range and selection, as events
 *  rows aliased `e`. */
export function lateEventsSql(sql: Sql, scope: Scope, plan: Plan): Fragment {
  return sql`
    select e.* from (${marksSql(sql, scope, plan, sql`project_id, event_id, ts`)}) m
    join events e on e.project_id = m.project_id and e.ts = m.ts and e.id = m.event_id
    where ${baseWhereSql(sql, scope)}`;
}

/** Every event, under the scope's selection, of each session-day a late event touches that is not taken
 *  from its held state (lateSessionCtes' late_me), as events rows aliased `e` with `late` (true for the
 *  marked ones: late_me holds every marked event of the late days, each in the day of its ts). `late` is
 *  one hashed set probed once an event: asked per event of the marks table, the planner took the marks'
 *  (project, day) index, which statistics older than the marks call small, and scanned every mark of the
 *  day for each event (2,000 marks at 1M events: stats 30d 2.1–3.1 s against 21 ms). */
export function lateSessionEventsSql(sql: Sql, scope: Scope): Fragment {
  return sql`
    select e.*, (e.project_id, e.id, e.ts) in (select l.project_id, l.id, l.ts from late_me l) as late
    from (select distinct project_id, day, session_id from late_me where not merged) m
    join events e on e.project_id = m.project_id and e.session_id = m.session_id
      and e.ts >= (m.day::timestamp at time zone 'UTC') and e.ts < ((m.day + 1)::timestamp at time zone 'UTC')
    where ${baseWhereSql(sql, scope)}`;
}

/**
 * CTEs over the late days' marked events:
 * - late_me: each marked event (any selection) as a fold takes it (0086 loupe_fold_marks: the page columns,
 *   what the day's rows hold of its session, k, and whether the session is merged, taken from k plus its
 *   marked events rather than from its events), and `in_scope`: its class is in the plan's selection (the
 *   late days lie inside the range);
 * - late_merged: the merged session-days under the selection: k and what the marked events add (span
 *   and counts);
 * - late_ev: the other touched session-days' events under the selection (lateSessionEventsSql's columns
 *   that session-day rows read);
 * - late_hashes (project, h, day): the late events' visitors that the day's rollup does not hold under the
 *   plan's selection.
 */
export function lateSessionCtes(sql: Sql, scope: Scope, plan: Plan): Fragment {
  return sql`
    late_me as materialized (
      select p.project_id, d.day, f.*,
        (f.tm >> ${Math.floor(plan.sel / 3)}) & 1 = 1 and (f.em >> ${plan.sel % 3}) & 1 = 1 as in_scope
      from unnest(${scope.projectIds}::text[]) p(project_id) cross join unnest(${plan.late}::date[]) d(day)
        cross join lateral loupe_fold_marks(p.project_id, d.day) f
    ), late_merged as materialized (
      select distinct on (project_id, day, session_id) project_id, day, session_id, k, m_first_ts as first_ts,
        m_last_ts as last_ts, m_pageviews as pageviews, m_custom as custom, m_active as active
      from late_me where merged and in_scope
    ), late_ev as materialized (
      select e.project_id, (e.ts at time zone 'UTC')::date as day, e.session_id, e.visitor_id, e.name, e.ts, e.late
      from (${lateSessionEventsSql(sql, scope)}) e
    ), late_hashes as (
      select distinct l.project_id, hashtextextended(l.visitor_id, 0) as h, l.day from late_me l
      where l.in_scope and l.name <> 'engagement' and not exists (
        select 1 from rollup_day_visitors r
        where r.project_id = l.project_id and r.day = l.day and r.visitor_hash = hashtextextended(l.visitor_id, 0)
          and r.sel_mask & ${1 << plan.sel} <> 0)
    )`;
}

/**
 * Under filters, for the session facts per set of values (set-sessions.ts), which hold no session's state:
 * late_keys, the late days' marked events and the events their facts lack (0091 rollup_set_session_late:
 * folded into the day's rows since the facts were counted), and late_ev, every event under the scope's
 * filters and selection of each session-day those touch, with `late` (one of them). The facts hold each such
 * session-day as its events without the late ones; rawCtes adds it as it is now and takes that out. With
 * `value` (a dimension's SQL over the events aliased `e`), each event's value too, as `k`.
 */
export function lateFilteredCtes(sql: Sql, scope: Scope, plan: Plan, value: Fragment | null = null): Fragment {
  return sql`
    ${lateKeysCte(sql, scope, plan)}, late_ev as materialized (
      select e.project_id, t.day, e.session_id, e.visitor_id, e.name, e.ts,
        (e.id, e.ts) in (select event_id, ts from late_keys) as late ${value ? sql`, ${value} as k` : sql``}
      from (select distinct project_id, day, session_id from late_keys) t
      join events e on e.project_id = t.project_id and e.session_id = t.session_id
        and e.ts >= (t.day::timestamp at time zone 'UTC') and e.ts < ((t.day + 1)::timestamp at time zone 'UTC')
      where ${whereSql(sql, scope)}
    )`;
}

/** late_keys (project_id, day, event_id, ts, session_id): the late days' marked events and the events their
 *  session facts per set of values lack (0091), which those facts hold each touched session-day without. */
export function lateKeysCte(sql: Sql, scope: Scope, plan: Plan): Fragment {
  return sql`
    late_keys as materialized (
      select project_id, day, event_id, ts, session_id from rollup_stale_days
      where project_id = any(${scope.projectIds}) and day = any(${plan.late}::date[]) and event_id is not null
        and session_id is not null
      union
      select project_id, day, event_id, ts, session_id from rollup_set_session_late
      where project_id = any(${scope.projectIds}) and day = any(${plan.late}::date[])
    )`;
}

/** Whether the event aliased `e` (of `project`) is one of the late days' marked events. One hashed set of
 *  the marks, probed once an event, as the build statements leave marked events out: a lookup per event
 *  took the marks' (project, day) index and scanned the day's marks. */
export function markedEventSql(sql: Sql, project: string, lateDays: string[], e: Fragment): Fragment {
  return sql`
    (${e}.id, ${e}.ts) in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = ${project} and m.day = any(${lateDays}::date[]) and m.event_id is not null and m.ts is not null)`;
}

/** The distinct `columns` of the late days' event marks. */
function marksSql(sql: Sql, scope: Scope, plan: Plan, columns: Fragment): Fragment {
  return sql`
    select distinct ${columns} from rollup_stale_days
    where project_id = any(${scope.projectIds}) and day = any(${plan.late}::date[]) and event_id is not null`;
}

// Breakdowns by entry and exit page (the sessions row's entry_page/exit_page, dimensions.ts) from the
// entry day rollups (sql/queries/build_rollup_entry_days.sql), in the shape of metrics.ts groupedSql,
// for one project, whole closed days, no filters and the metrics the rows carry (under one family's
// filters, set-values.ts). Null when they cannot answer.
//
// The day rows hold only the sessions that lie within their day. A session listed as split on a day of
// the range is recomputed here from its events in the range, under its current entry or exit page:
// that page can change with events of a day outside the range (a session continued after midnight gets
// a new exit page), and such a write does not rebuild the days that list the session as split.
// The part of the range the rollups do not hold (segments.ts: pending and unbuilt days, today, partial
// edges) is read the same way: every session with an event there is recomputed from its events in the
// range. None of them is in a rolled day's rows: a session within a built day that gains an event on
// another day has that day marked by the checkpoint, so the day is not rolled as it stands.
// A day marked only for late events and stretched sessions (late.ts) is rolled, less the sessions its
// marks name: rollup_day_entry_sessions says under which page and in which selections its rows counted
// each, so their share as built is taken out (late_old: the session's events of the day without the
// marked ones, as the build counted them) and they are recomputed with the split sessions. Their
// visitors per page change the count kept over the days as built by the pairs they held or hold alone
// (lateMoved), so a trickle of late events costs a read its touched sessions, not the range's pairs.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, type Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';
import { SESSION_METRICS } from './eligible.ts';
import { keptOverRolled } from './range-values.ts';
import { withAdded } from './value-rows.ts';
import { hasRawPart, planRange, rawCtes, rawWhereSql, type Plan } from './segments.ts';
import { markedEventSql } from './late.ts';
import { rollupFilteredEntryGroups } from './set-values.ts';
import { planVisitors } from './visitors.ts';

/** The dimension, its sessions column and its kind in rollup_day_entry. */
const KINDS: Record<string, { column: string; kind: number }> = {
  entry_page: { column: 'entry_page', kind: 0 },
  exit_page: { column: 'exit_page', kind: 1 },
};

export const ENTRY_DIMENSIONS = new Set(Object.keys(KINDS));

/** `print`: the digest of the split sessions' pages the counts were made with. */
type Stored = { print: string; values: string[]; visitors: number[] };

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupEntryGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const spec = KINDS[dimension];
  if (!spec || scope.projectIds.length !== 1 || metrics.some((m) => !SESSION_METRICS.has(m.name))) return null;
  if (scope.filters.length > 0) return rollupFilteredEntryGroups(sql, scope, dimension, spec, metrics);
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const raw = hasRawPart(days);
  const project = scope.projectIds[0]!;
  const column = sql(spec.column);
  const dayRows = sql`
    select * from rollup_day_entry
    where project_id = ${project} and day = any(${days.rolled}::date[]) and sel = ${days.sel} and kind = ${spec.kind}`;
  // The sessions the late days' marks name (late.ts): taken out of their day's rows, recomputed as split.
  const touched = sql`
    select distinct day, session_id from rollup_stale_days
    where project_id = ${project} and day = any(${days.late}::date[]) and session_id is not null`;
  const splitIds = sql`
    select distinct session_id from rollup_day_split_sessions where project_id = ${project} and day = any(${days.rolled}::date[])
    ${raw ? sql`union select e.session_id from events e where ${rawWhereSql(sql, scope, days)}` : sql``}
    ${days.late.length > 0 ? sql`union select session_id from (${touched}) t` : sql``}`;
  const marked = (e: Fragment) => markedEventSql(sql, project, days.late, e);
  // The page is looked up per session (a scalar subquery, one probe of the sessions key each): joined,
  // the planner took the few hundred split sessions for thousands and hashed every session of the project
  // (2M rows at 10M events: 0.4 s a read). `withoutMarked`: without the late days' marked events.
  const splitOf = (ids: Fragment, withoutMarked = false) => sql`
      select * from (
        select x.*, (select s.${column} from sessions s where s.project_id = ${project} and s.id = x.session_id) as k
        from (
          select e.session_id, array_agg(distinct e.visitor_id) filter (where e.name <> 'engagement') as visitor_ids, min(e.ts) as first_ts, max(e.ts) as last_ts,
            count(*) filter (where e.name = 'pageview') as pageviews,
            count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
            count(*) filter (where e.name <> 'engagement') as active
          from events e join (${ids}) i on i.session_id = e.session_id
          where ${baseWhereSql(sql, scope)} ${withoutMarked ? sql`and not ${marked(sql`e`)}` : sql``}
          group by 1
        ) x where x.active > 0
      ) y where y.k is not null`;
  const split = sql`split_sessions as materialized (${splitOf(splitIds)})`;
  // The share of the touched sessions as their day's rows counted it, to take out.
  const lateOld = sql`
    late_old as (
      select s.${column} as k, -1 as sessions, -x.pageviews as pageviews, -x.active as active,
        -((x.pageviews = 1 and x.custom = 0)::int) as bounces, -(extract(epoch from x.last_ts - x.first_ts) * 1000) as duration_ms
      from (${touched}) t
      join rollup_day_entry_sessions s on s.project_id = ${project} and s.day = t.day and s.session_id = t.session_id
        and s.sel_mask & ${1 << days.sel} <> 0
      cross join lateral (
        select min(e.ts) as first_ts, max(e.ts) as last_ts, count(*) filter (where e.name = 'pageview') as pageviews,
          count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
          count(*) filter (where e.name <> 'engagement') as active
        from events e
        where e.project_id = ${project} and e.session_id = t.session_id
          and e.ts >= (t.day::timestamp at time zone 'UTC') and e.ts < ((t.day + 1)::timestamp at time zone 'UTC')
          and ${baseWhereSql(sql, scope)} and not ${marked(sql`e`)}
      ) x
      where s.${column} is not null and x.active > 0
    )`;
  // With a part read from events the visitors per page are counted in the read itself, over its
  // split_sessions; a late day's pairs come from its session list, less the touched sessions.
  const visitorRows =
    days.late.length === 0
      ? sql`select d.page as k, h from (${dayRows}) d, unnest(d.visitors) as h`
      : sql`
      select d.page as k, h from (${dayRows}) d, unnest(d.visitors) as h where d.day <> all(${days.late}::date[])
      union all
      select s.${column}, s.visitor_hash from rollup_day_entry_sessions s
      where s.project_id = ${project} and s.day = any(${days.late}::date[]) and s.sel_mask & ${1 << days.sel} <> 0
        and s.${column} is not null and (s.day, s.session_id) not in (${touched})`;
  // Without one, the kept count over the rolled days as built (the split sessions without the marked
  // events), and with late days the difference their marked events make (lateMoved).
  const piece = days.raw.length > 0;
  const rolledIds = sql`
    select distinct session_id from rollup_day_split_sessions where project_id = ${project} and day = any(${days.rolled}::date[])`;
  const kept = piece
    ? null
    : await keptVisitors(
        sql,
        project,
        spec,
        dimension,
        days,
        rolledIds,
        sql`split_sessions as materialized (${splitOf(rolledIds, days.late.length > 0)})`,
      );
  const visitors = !kept
    ? pageVisitorsSql(sql, visitorRows)
    : days.late.length === 0
      ? unnestSql(sql, kept)
      : sql`
        select k, sum(visitors)::int as visitors from (${unnestSql(sql, kept)} union all select k, n from late_delta) x
        group by 1 having sum(visitors) > 0`;
  // The pairs (page, visitor hash) the touched sessions held as built but not now (-1) or hold now but did
  // not (+1), each only where no other session of a late day, untouched split session or row of another
  // rolled day holds it.
  const lateMoved = () => {
    const bit = 1 << days.sel;
    const others = days.rolled.filter((d) => !days.late.includes(d));
    const touchedIds = sql`select session_id from (${touched}) t`;
    return sql`
    late_split_was as materialized (${splitOf(sql`${touchedIds} intersect ${rolledIds}`, true)}),
    late_was as (
      select s.${column} as k, s.visitor_hash as h from (${touched}) t
      join rollup_day_entry_sessions s on s.project_id = ${project} and s.day = t.day and s.session_id = t.session_id
      where s.sel_mask & ${bit} <> 0 and s.${column} is not null
      union
      select k, hashtextextended(v, 0) from late_split_was, unnest(visitor_ids) as v
    ), late_now as (
      select k, hashtextextended(v, 0) as h from split_sessions, unnest(visitor_ids) as v
      where session_id in (${touchedIds})
    ), late_moved as materialized (
      select k, h, bool_or(now) as now from (
        select k, h, false as now from late_was union all select k, h, true from late_now
      ) x group by 1, 2 having bool_or(now) = bool_and(now)
    ), late_listed as materialized (
      select s.${column} as k, s.visitor_hash as h from rollup_day_entry_sessions s
      where s.project_id = ${project} and s.day = any(${days.late}::date[]) and s.sel_mask & ${bit} <> 0
        and s.${column} is not null and s.visitor_hash in (select h from late_moved)
        and (s.day, s.session_id) not in (${touched})
    ), late_split_held as (
      select k, hashtextextended(v, 0) as h from split_sessions, unnest(visitor_ids) as v
      where session_id not in (${touchedIds})
    ), late_delta as (
      select m.k, sum(case when m.now then 1 else -1 end)::int as n from late_moved m
      where not exists (select 1 from late_listed l where l.k = m.k and l.h = m.h)
        and not exists (select 1 from late_split_held x where x.k = m.k and x.h = m.h)
        and not exists (
          select 1 from rollup_day_visitors r
          join rollup_day_entry d on d.project_id = ${project} and d.day = r.day and d.sel = ${days.sel}
            and d.kind = ${spec.kind} and d.page = m.k
          where r.project_id = ${project} and r.visitor_hash = m.h and r.day = any(${others}::date[])
            and r.sel_mask & ${bit} <> 0 and m.h = any(d.visitors))
      group by 1
    ),`;
  };
  const all = await planVisitors(sql, scope, days);
  const mean = (sum: Fragment, n: Fragment) => sql`case when ${n} > 0 then ${sum} / ${n} else 0 end`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`v.visitors::float8`,
      pageviews: sql`c.pageviews::float8`,
      events: sql`c.events::float8`,
      sessions: sql`c.sessions::float8`,
      bounce_rate: mean(sql`c.bounces::numeric`, sql`c.sessions::numeric`),
      session_duration: mean(sql`c.duration_ms`, sql`c.sessions::numeric`),
      pages_per_session: mean(sql`c.pageviews::float8`, sql`c.sessions::float8`),
    })[m.name]!;
  const values = metrics.map((m) => sql`(${value(m)})::float8`).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with ${raw ? sql`${rawCtes(sql, scope, days)},` : sql``} ${split}, ${lateOld},
    ${kept && days.late.length > 0 ? lateMoved() : sql``} more as (${all.more}), c as (
      select k, sum(sessions) as sessions, sum(pageviews) as pageviews, sum(events) as events, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms
      from (
        select page as k, sessions, pageviews, events, bounces, duration_ms from (${dayRows}) d
        union all
        select k, 1, pageviews, active, (pageviews = 1 and custom = 0)::int, extract(epoch from last_ts - first_ts) * 1000
        from split_sessions
        union all
        select k, sessions, pageviews, active, bounces, duration_ms from late_old
      ) x group by 1
    ), v as (${visitors})
    select c.k as key, v.visitors, (${all.rolled.get(project)!} + (select coalesce(sum(n), 0) from more))::int as all_visitors,
      array[${values}]::float8[] as values
    from c join v on v.k = c.k`,
  };
}

/**
 * Visitors per page over a range of rolled days only, stored once per range and dimension with the
 * digest of the split sessions' pages as they are now: a moved page replaces the value rather than
 * adding a row. (With a raw part the sessions change with every event: counted per read.) The days'
 * pairs before yesterday are kept on their own too (range-values.ts keptOverRolled), so a rebuild of the
 * recent days, or a moved page, adds the recent days' rows and the split sessions to them as late events
 * are added (value-rows.ts withAdded) instead of counting every pair of the range again.
 */
async function keptVisitors(
  sql: Sql,
  project: string,
  spec: { column: string; kind: number },
  dimension: string,
  days: Plan,
  splitIds: Fragment,
  split: Fragment,
): Promise<Omit<Stored, 'print'>> {
  // Each page by the sessions key, as in split_sessions.
  const [found]: [{ md5: string }?] = await sql`
    select md5(coalesce(string_agg(i.session_id || '=' || coalesce(quote_literal((
      select s.${sql(spec.column)} from sessions s where s.project_id = ${project} and s.id = i.session_id)), 'null'),
      ',' order by i.session_id), ''))
    from (${splitIds}) i`;
  const print = found!.md5;
  const rows = (rolled: string[]) => sql`
    select d.page as k, d.day, d.visitors from rollup_day_entry d
    where d.project_id = ${project} and d.day = any(${rolled}::date[]) and d.sel = ${days.sel} and d.kind = ${spec.kind}`;
  const splitRows = sql`
    select * from (
      with ${split}
      select k, null::date as day, array(select hashtextextended(v, 0) from unnest(visitor_ids) as v) as visitors
      from split_sessions
    ) s`;
  const both = async (rolled: string[], since: string) => {
    const found = await sql<{ k: string; visitors: number; settled: number }[]>`
      with ${split}
      select k, count(*)::int as visitors, count(*) filter (where old)::int as settled from (
        select k, h, bool_or(old) as old from (
          select d.k, h, d.day < ${since}::date as old from (${rows(rolled)}) d, unnest(d.visitors) as h
          union all
          select k, hashtextextended(v, 0), false from split_sessions, unnest(visitor_ids) as v
        ) p group by 1, 2
      ) x group by 1`;
    const of = (n: (r: (typeof found)[number]) => number): Stored => {
      const kept = found.filter((r) => n(r) > 0);
      return { print, values: kept.map((r) => r.k), visitors: kept.map(n) };
    };
    return { all: of((r) => r.visitors), settled: of((r) => r.settled) };
  };
  return keptOverRolled<Stored>(
    sql,
    project,
    days,
    `entry:${dimension}`,
    {
      both,
      add: async (settled, { settled: before, recent }) => {
        const own = (f: Fragment) => ({ rows: f, base: f });
        const added = sql`select * from (${rows(recent)}) r union all ${splitRows}`;
        const got = await withAdded(
          sql,
          project,
          { rolled: before, sel: days.sel },
          { all: 0, values: settled.values, visitors: settled.visitors },
          own(rows(before)),
          own(added),
        );
        return { print, values: got.values, visitors: got.visitors };
      },
    },
    (stored) => stored.print === print,
  );
}

/** Distinct visitors per page over the range (k, visitors): the days' (k, h) pairs and the split sessions'
 *  visitors; reads the CTE split_sessions. */
function pageVisitorsSql(sql: Sql, pairs: Fragment): Fragment {
  return sql`
    select k, count(*)::int as visitors from (
      ${pairs}
      union
      select k, hashtextextended(v, 0) from split_sessions, unnest(visitor_ids) as v
    ) x group by 1`;
}

/** Kept visitors per page as rows (k, visitors). */
const unnestSql = (sql: Sql, kept: Omit<Stored, 'print'>) =>
  sql`select k, visitors from unnest(${kept.values}::text[], ${kept.visitors}::int[]) as v(k, visitors)`;

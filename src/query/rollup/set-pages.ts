// The page breakdown's session and page metrics (sessions, bounce rate, session duration, pages per
// session, time on page, scroll depth) under filters on one family of dimensions, from the page facts per
// set of values (0092, counted with the session facts per set by build_rollup_set_sessions.sql), or on
// both families, from those per pair of sets (0099).
// Under a filter a session is its events that match, and it counts for every page it has such an event
// on (metrics.ts groupedSql); a page fact is sequenced over all the session's events and kept by its
// pageview's own values (pageFactsSql). So:
// - a session-day pure in class and in the family's set is all in or all out: its day's rows of the
//   matching sets sum it, per page it touched (under both families, one pure in class and both sets);
// - the usual mixed visit (a class, a visitor-level set and two acquisition sets) is summed per pair of
//   sets and page, as rollup_day_acq_pairs sums it: whole when both sets match, one part when one does
//   (under both families it is read from its events, as every session-day its part rows list);
// - the page facts of every session-day of one class that those rows hold are summed per pageview's set;
// - the rest is counted from events under the filters: the few session-days mixed otherwise (listed in
//   rollup_day_session_parts), the range's raw part, each session-day late events touched (now, and as the
//   rows hold it, without them: late.ts), and the split sessions (whole, less their days).
// Pageviews and events are counted in the same rows, per event (the raw part's and the late events' added);
// the visitors per page come from the per-set page rows (set-values.ts), whose count is kept per range.
// Under both families, views, events and visitors all come from the per-pair page rows (set-values.ts).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, filtersSql, type Scope } from '../filters.ts';
import { parseMetric, type Metric } from '../metrics.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';
import { ACQUISITION_DIMENSIONS, VISITOR_DIMENSIONS, crossedOf, crossPairSql, printed, setIds } from './dims.ts';
import { lateKeysCte } from './late.ts';
import { pageEventColumns, pageFactsSql, timeOnPageSql } from './page-fix.ts';
import { settledSumsSql } from './range-values.ts';
import { planRange, rawWhereSql, type Plan } from './segments.ts';
import { rollupFilteredPageGroups } from './set-values.ts';
import { selectionSql } from './value-rows.ts';

const VISITORS = [parseMetric('visitors')!];
const COUNTS = ['visitors', 'pageviews', 'events'].map((m) => parseMetric(m)!);

type Family = 'dim' | 'acq' | 'cross';

/** The page breakdown with any of its metrics under the scope's filters on one family or both; null when
 *  these rows cannot answer (a filter on another dimension, several projects, no whole day of the range
 *  counted). */
export async function rollupFilteredPageFacts(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || scope.filters.length === 0) return null;
  const family: Family | null = scope.filters.every((f) => VISITOR_DIMENSIONS.has(f.dimension))
    ? 'dim'
    : scope.filters.every((f) => ACQUISITION_DIMENSIONS.has(f.dimension))
      ? 'acq'
      : crossedOf(scope.filters)
        ? 'cross'
        : null;
  if (!family) return null;
  const plan = await planRange(sql, scope, { setSessions: true, patch: true });
  if (!plan) return null;
  // Visitors per page from the per-set page rows (kept per range), and under both families views and
  // events too (the per-pair fact rows hold pure sessions only); the rest from the page facts.
  const visitors = await rollupFilteredPageGroups(sql, scope, family === 'cross' ? COUNTS : VISITORS);
  if (!visitors) return null;
  const sessions = sql`coalesce(x.sessions, 0)`;
  const mean = (sum: Fragment, n: Fragment) => sql`case when ${n} > 0 then ${sum} / ${n} else 0 end`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`v.visitors::float8`,
      pageviews: family === 'cross' ? sql`v.values[2]` : sql`coalesce(x.pageviews, 0)::float8`,
      events: family === 'cross' ? sql`v.values[3]` : sql`coalesce(x.events, 0)::float8`,
      sessions: sql`${sessions}::float8`,
      bounce_rate: mean(sql`x.bounces::numeric`, sql`${sessions}::numeric`),
      session_duration: mean(sql`x.duration_ms`, sql`${sessions}::numeric`),
      pages_per_session: mean(sql`x.session_pageviews::float8`, sql`${sessions}::float8`),
      time_on_page: mean(sql`x.time_sum`, sql`x.time_count::float8`),
      scroll_depth: mean(sql`x.scroll_sum`, sql`x.scroll_count::float8`),
    })[m.name]!;
  const columns = metrics.map((m) => sql`(${value(m)})::float8`).reduce((a, b) => sql`${a}, ${b}`);
  const cells = await keptCells(sql, scope, plan, family);
  return {
    grouped: sql`
    with v as (${visitors.grouped}), ${factCtes(sql, scope, plan, family, cells.rows)}
    select v.key, v.visitors, v.all_visitors, array[${columns}]::float8[] as values
    from v left join page_facts x on x.path = v.key`,
  };
}

/** The fact rows' columns (cellsSql) and their types, as kept sums. */
const CELLS = [
  ['pageviews', 'numeric'],
  ['events', 'numeric'],
  ['sessions', 'numeric'],
  ['bounces', 'numeric'],
  ['session_pageviews', 'numeric'],
  ['duration_ms', 'numeric'],
  ['time_sum', 'float8'],
  ['time_count', 'numeric'],
  ['scroll_sum', 'float8'],
  ['scroll_count', 'numeric'],
] as const;

/**
 * The fact rows' sums per path over the plan's settled days, kept per range, selection and filters
 * (range-values.ts settledSumsSql), beside the recent days' rows: the settled days change only by a build,
 * a fold or a count of their facts again, each of which gives them a new build_seq. Summing the rows of 30
 * days was most of a warm read at 10M events. (The float sums of time and scroll are then added in another
 * order than one pass would add them.)
 */
function keptCells(sql: Sql, scope: Scope, plan: Plan, family: Family): Promise<{ rows: Fragment }> {
  return settledSumsSql(
    sql,
    scope.projectIds[0]!,
    plan,
    `page_facts:${family}:${printed(scope.filters)}`,
    ['path', 'text'],
    CELLS,
    (rolled) => cellsSql(sql, scope, plan, family, rolled),
  );
}

/** The sets the filters select: one family's ids, or under both families the pairs (crossPairSql). */
function inSetsSql(sql: Sql, scope: Scope, family: Family, alias: string, column: string): Fragment {
  const project = scope.projectIds[0]!;
  return family === 'cross'
    ? crossPairSql(sql, project, alias, scope.filters)
    : sql`${sql(alias)}.${sql(column)} in (${setIds(sql, project, `rollup_${family}_sets`, scope)})`;
}

/** The rows of `alias` of `rolled` (days of the plan) under the plan's selection. */
function daysSql(sql: Sql, scope: Scope, plan: Plan, alias: string, rolled: string[]): Fragment {
  return sql`${sql(alias)}.project_id = ${scope.projectIds[0]!} and (${dayRunsSql(sql, rolled, alias)}) and ${selectionSql(sql, plan, alias)}`;
}

/** The fact rows of `rolled` under the filters (path and CELLS): the family's page facts per set, and under
 *  acquisition filters the paired session-days per pair of sets, whole or the part in a selected set. */
function cellsSql(sql: Sql, scope: Scope, plan: Plan, family: Family, rolled: string[]): Fragment {
  const inSets = (alias: string, column: string) => inSetsSql(sql, scope, family, alias, column);
  const days = (alias: string) => daysSql(sql, scope, plan, alias, rolled);
  const pick = (both: string, a: string, b: string) =>
    sql`case when a_hit and b_hit then ${sql(both)} when a_hit then ${sql(a)} else ${sql(b)} end`;
  return sql`
      -- (under both families views and events are the per-pair page rows', read beside: none here)
      select c.path, ${family === 'cross' ? sql`0 as pageviews, 0 as events` : sql`c.pageviews, c.events`}, c.sessions,
        c.bounces, c.session_pageviews, c.duration_ms, c.time_sum, c.time_count, c.scroll_sum, c.scroll_count
      from ${sql(`rollup_day_${family}_page_facts`)} c
      where ${days('c')} and ${inSets('c', 'set_id')}
      ${
        family === 'acq'
          ? sql`union all
      select path, 0, 0, ${pick('n', 'a_sessions', 'b_sessions')}, ${pick('bounces', 'a_bounces', 'b_bounces')},
        ${pick('pageviews', 'a_pageviews', 'b_pageviews')}, ${pick('duration_ms', 'a_duration_ms', 'b_duration_ms')}, 0, 0, 0, 0
      from (
        select p.*, ${inSets('p', 'a_set_id')} as a_hit, ${inSets('p', 'b_set_id')} as b_hit from rollup_day_acq_page_pairs p
        where ${days('p')}
      ) p
      where a_hit or b_hit`
          : sql``
      }`;
}

/**
 * CTEs ending in page_facts (path, pageviews, events, sessions, bounces, session_pageviews, duration_ms,
 * time_sum, time_count, scroll_sum, scroll_count) under the scope's filters on `family`.
 */
function factCtes(sql: Sql, scope: Scope, plan: Plan, family: Family, cells: Fragment): Fragment {
  const project = scope.projectIds[0]!;
  const kept = filtersSql(sql, scope.filters);
  const inSets = (alias: string, column: string) => inSetsSql(sql, scope, family, alias, column);
  const days = (alias: string) => daysSql(sql, scope, plan, alias, plan.rolled);
  const late = plan.late.length > 0;
  // Events as the page facts read them (page-fix.ts), with the filters' verdict and where they count from:
  // src (which share), g (the session's day, or -infinity for a split session whole: a key, never null)
  // and w (added w times).
  const columns = (src: number, w: Fragment, g: Fragment) =>
    sql`${src}::int as src, ${w}::int as w, ${g} as g, ${pageEventColumns(sql)}, coalesce(${kept}, false) as kept`;
  const inDay = (day: string) =>
    sql`e.ts >= (${sql(day)}::timestamp at time zone 'UTC') and e.ts < ((${sql(day)} + 1)::timestamp at time zone 'UTC')`;
  const notLate = late ? sql`(e.id, e.ts) not in (select event_id, ts from late_keys)` : sql`true`;
  // The parts list every session-day not pure in class and both sets: under both families each is read
  // from its events when a part of it is in the sets the filters select.
  const mixed =
    family === 'dim'
      ? sql`p.dim_mixed and ${inSets('p', 'dim_set_id')}`
      : family === 'acq'
        ? sql`p.acq_mixed and not p.acq_paired and ${inSets('p', 'acq_set_id')}`
        : inSets('p', '');
  const time = timeOnPageSql(sql);
  return sql`
    ${late ? sql`${lateKeysCte(sql, scope, plan)},` : sql``}
    cells as (${cells}), mixed_sd as (
      select distinct p.day, p.session_id from rollup_day_session_parts p where ${days('p')} and ${mixed}
    ), raw_ev as materialized (
      -- the range's raw part, read once
      select ${columns(0, sql`1`, sql`(e.ts at time zone 'UTC')::date`)} from events e where ${rawWhereSql(sql, scope, plan)}
    ), raw_keys as (
      select distinct g as day, session_id from raw_ev
      ${late ? sql`union select day, session_id from late_keys` : sql``}
    ), split_ids as (
      select session_id from rollup_day_split_sessions
      where project_id = ${project} and day >= ${plan.from}::date and day < ${plan.to}::date
      union
      -- each session looked up by its key (LIMIT keeps it a lookup: hashing every session row took 0.17 s at
      -- 1M events for a few hundred sessions)
      select r.session_id from raw_keys r
      left join lateral (
        select s.id, s.started_at, s.last_activity from sessions s where s.project_id = ${project} and s.id = r.session_id
        limit 1) s on true
      where s.id is null or s.started_at < (r.day::timestamp at time zone 'UTC')
        or s.last_activity >= ((r.day + 1)::timestamp at time zone 'UTC')
    ), pev as materialized (
      select * from raw_ev
      -- the mixed session-days of the rolled days, as the rows hold them (without late events)
      union all
      select ${columns(1, sql`1`, sql`m.day`)} from mixed_sd m
      join events e on e.project_id = ${project} and e.session_id = m.session_id and ${inDay('m.day')}
      where ${baseWhereSql(sql, scope)} and ${notLate}
      ${
        late
          ? sql`-- each session-day late events touched: now, less as the rows hold it
      union all
      select ${columns(2, sql`v.w`, sql`t.day`)}
      from (select distinct day, session_id from late_keys) t
      join events e on e.project_id = ${project} and e.session_id = t.session_id and ${inDay('t.day')}
      cross join (values (1), (-1)) v(w)
      where ${baseWhereSql(sql, scope)} and (v.w = 1 or ${notLate})`
          : sql``
      }
      -- the split sessions whole, less their days
      union all
      select ${columns(3, sql`v.w`, sql`case when v.w = 1 then '-infinity'::date else (e.ts at time zone 'UTC')::date end`)}
      from split_ids i join events e on e.project_id = ${project} and e.session_id = i.session_id
      cross join (values (1), (-1)) v(w)
      where ${baseWhereSql(sql, scope)}
    ), psd as (
      select src, session_id, g, w, count(*) filter (where name = 'pageview') as pageviews,
        count(*) filter (where name <> all(${BUILT_IN_EVENTS})) as custom,
        extract(epoch from max(ts) - min(ts)) * 1000 as duration_ms
      from pev where kept group by 1, 2, 3, 4
    ), psess as (
      select t.path, sum(t.w) as sessions, coalesce(sum(t.w) filter (where s.pageviews = 1 and s.custom = 0), 0) as bounces,
        sum(t.w * s.pageviews) as session_pageviews, sum(t.w * s.duration_ms) as duration_ms
      from (select distinct src, session_id, g, w, path from pev where kept and name <> 'engagement' and path is not null) t
      join psd s using (src, session_id, g, w)
      group by 1
    ), pev_k as (
      select *, case when kept then w else 0 end as wk from pev
    ), pfacts as (
      select path, coalesce(sum(wk * ${time}), 0) as time_sum, coalesce(sum(wk) filter (where ${time} is not null), 0) as time_count,
        coalesce(sum(wk * scroll_depth), 0) as scroll_sum, coalesce(sum(wk) filter (where scroll_depth is not null), 0) as scroll_count
      from (${pageFactsSql(sql, sql`src, session_id, g, w`, 'pev_k', 'wk')}) f
      where name = 'pageview' and path is not null and wk <> 0
      group by 1
    ), pcount as (
      -- the events the rows do not count one by one: the raw part's and the late share (under both families
      -- the per-pair page rows answer views and events: none)
      select path, coalesce(sum(w) filter (where name = 'pageview'), 0) as pageviews, sum(w) as events from pev
      where ${family === 'cross' ? sql`false` : sql`src in (0, 2)`} and kept and name <> 'engagement' and path is not null
      group by 1
    ), page_facts as (
      select path, sum(pageviews) as pageviews, sum(events) as events, sum(sessions) as sessions, sum(bounces) as bounces, sum(session_pageviews) as session_pageviews,
        sum(duration_ms) as duration_ms, sum(time_sum) as time_sum, sum(time_count) as time_count, sum(scroll_sum) as scroll_sum,
        sum(scroll_count) as scroll_count
      from (
        select * from cells
        union all
        select path, pageviews, events, 0, 0, 0, 0, 0, 0, 0, 0 from pcount
        union all
        select path, 0, 0, sessions, bounces, session_pageviews, duration_ms, 0, 0, 0, 0 from psess
        union all
        select path, 0, 0, 0, 0, 0, 0, time_sum, time_count, scroll_sum, scroll_count from pfacts
      ) x
      group by 1
    )`;
}

/** `days` (UTC day strings) as ranges of consecutive days over `alias`.day: the index on (project, day) then
 *  reads just those rows, where `day = any(…)` over a month had the planner scan the whole table and test
 *  each row against the list (150 against 225 ms for the visitor-level page facts of 30 days at 1M events). */
function dayRunsSql(sql: Sql, days: string[], alias: string): Fragment {
  const runs: [string, string][] = [];
  for (const day of [...days].sort()) {
    const last = runs.at(-1);
    if (last && Date.parse(day) - Date.parse(last[1]) === 86_400_000) last[1] = day;
    else runs.push([day, day]);
  }
  return runs
    .map(([a, b]) => sql`(${sql(alias)}.day >= ${a}::date and ${sql(alias)}.day <= ${b}::date)`)
    .reduce((x, y) => sql`${x} or ${y}`);
}

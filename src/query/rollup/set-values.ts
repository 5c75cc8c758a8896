// Breakdowns by page, event name, and entry or exit page under filters on one family of dimensions (the
// visitor-level or the acquisition ones, dims.ts), from rows kept per day, class, set of that family and
// value, and under filters on both from rows per pair of sets (0094): the filters select the sets, so a
// 30-day read sums the rows of the matching sets instead of grouping every event of the range. Visitors,
// pageviews and events only (value-rows.ts). The part of the range the rows do not hold is grouped from
// its events. Null when they cannot answer: filters on other dimensions, other metrics, or a range
// without a built day.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, whereSql, type Scope } from '../filters.ts';
import { parseMetric, type Metric } from '../metrics.ts';
import {
  crossedOf,
  crossPairSql,
  type Family,
  crossRows,
  familyOf,
  familyRows,
  KEYED_FAMILY,
  keyedOf,
  keyedSql,
  printed,
  setIds,
} from './dims.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';
import { withSessionMetrics } from './dim-sessions.ts';
import { lateEventsSql, lateKeysCte } from './late.ts';
import { addedEventsSql, hasRawPart, planRange, rawWhereSql, type Plan } from './segments.ts';
import {
  ownBaseGroups,
  rawValueRowsSql,
  selectionSql,
  valueRowGroups,
  VALUE_ROW_METRICS,
  type LateVisitors,
} from './value-rows.ts';

const answers = (scope: Scope, metrics: Metric[], also: ReadonlySet<string> = new Set()) =>
  scope.projectIds.length === 1 && metrics.every((m) => VALUE_ROW_METRICS.has(m.name) || also.has(m.name));

/** The session metrics the entry and exit page rows per set carry (0098), as sums. */
const ENTRY_SESSION_METRICS = new Set(['sessions', 'bounce_rate', 'session_duration', 'pages_per_session']);

/**
 * The page breakdown (the page panel: visitors and views per path) from the per-set page rows (0089,
 * build_rollup_set_value_days.sql), or under filters on both families the per-pair ones (0094); the
 * share's base is the family's own rows (the crossed rows) under the same filters, or, under a page filter,
 * the page rows themselves. The raw part and late events are grouped from their events.
 */
export async function rollupFilteredPageGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  // Under a page filter, the rows of that path; the name rows have no path.
  const split = keyedOf(scope.filters);
  if (!split || scope.filters.length === 0 || split.keyed?.table === 'names') return null;
  const family = split.rest.length === 0 ? KEYED_FAMILY : familyOf(split.rest);
  const crossed = crossedOf(split.rest);
  if (!answers(scope, metrics) || (!family && !crossed)) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const rolled = (rolledDays: string[]) => {
    const sets = family
      ? split.rest.length > 0
        ? sql`and p.set_id in (${setIds(sql, project, family.sets, { filters: split.rest })})`
        : sql``
      : sql`and ${crossPairSql(sql, project, 'p', split.rest)}`;
    const rows = sql`
      select p.path as k, p.day, p.pageviews, p.events, p.visitors
      from ${sql(family ? family.pages : 'rollup_day_cross_pages')} p
      where p.project_id = ${project} and p.day = any(${rolledDays}::date[]) and ${selectionSql(sql, days, 'p')}
        ${sets} ${keyedSql(sql, 'p', split.keyed)}`;
    // Under a page filter the rows hold every event in scope: their own base.
    if (split.keyed) return { rows, base: rows };
    const rolledPlan = { ...days, rolled: rolledDays };
    const everyPath = { day: sql`null::text` };
    const base = family
      ? familyRows(sql, project, family, rolledPlan, split.rest, everyPath)
      : crossRows(sql, project, rolledPlan, split.rest, everyPath);
    return { rows, base };
  };
  const events = sql`${addedEventsSql(sql, scope, days)} e`;
  const where = filtersSql(sql, scope.filters);
  const added = hasRawPart(days) && {
    rows: rawValueRowsSql(sql, sql`e.path`, events, where),
    base: rawValueRowsSql(sql, sql`null::text`, events, where),
  };
  const question = `page:${family ? family.label : 'cross'}:${printed(scope.filters)}`;
  return valueRowGroups(sql, project, days, question, rolled, added || null, metrics);
}

/**
 * The event breakdown (the Events panel) under one family's filters, with or without filters on the event
 * name, from the per-set name rows (0090, build_rollup_set_value_days.sql), or under filters on both
 * families the per-pair ones (0094): the event filters apply to the rows' name and the families' to their
 * sets, and the rows are their own base, as the prop rollups' rows of a name are (props.ts
 * rollupEventGroups). The raw part and late events are grouped from their events.
 */
export async function rollupFilteredEventGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const own = scope.filters.filter((f) => f.dimension !== 'event');
  const family = familyOf(own);
  if (!answers(scope, metrics) || (!family && !crossedOf(own))) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const names = scope.filters.filter((f) => f.dimension === 'event');
  const sets = family
    ? sql`e.set_id in (${setIds(sql, project, family.sets, { filters: own })})`
    : crossPairSql(sql, project, 'e', own);
  // The rows are aliased `e` and carry `name`, so the events' `event` filter SQL applies to them.
  const rolled = (rolledDays: string[]) => sql`
    select e.name as k, e.day, e.pageviews, e.events, e.visitors
    from ${sql(family ? family.names : 'rollup_day_cross_names')} e
    where e.project_id = ${project} and e.day = any(${rolledDays}::date[]) and ${selectionSql(sql, days, 'e')}
      and ${filtersSql(sql, names)} and ${sets}`;
  const question = `event:${family ? family.label : 'cross'}:${printed(scope.filters)}`;
  return ownBaseGroups(sql, scope, days, question, rolled, sql`e.name`, metrics);
}

/**
 * Entry and exit page breakdowns from the per-set entry rows (0090), or under filters on both families the
 * per-pair ones (0094), counted with the session facts by build_rollup_set_sessions.sql. Under a filter the
 * raw path keys each matching event by its session's page as the sessions row holds it now (dimensions.ts),
 * so a session that lies within its day adds its matching events to its page's row of each set they carry.
 * The rest is grouped from events under the filters: the range's raw part, planned as the session facts
 * are without a patch (a day with marks, today under traffic among them, a day whose facts lack events a
 * fold added, 0091, or hold sessions it split since, 0093, are in it), and the rolled days' split sessions, whose page can change with
 * another day's events (entry.ts): added on every read with a raw part, kept in the count without one. The
 * share's base is the family's own rows under the same filters. The session metrics are summed beside them
 * (entrySessionsSql). `spec`: the sessions column and the rows' kind (0 entry, 1 exit).
 */
export async function rollupFilteredEntryGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  spec: { column: string; kind: number },
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const family = familyOf(scope.filters);
  if (!answers(scope, metrics, ENTRY_SESSION_METRICS) || (!family && !crossedOf(scope.filters))) return null;
  // Visitors alone (the dashboard's entry and exit panels) take the late days from the rows, their touched
  // visitors counted again; the rows' views and events would need each touched session's share as counted.
  const visitorsOnly = metrics.every((m) => m.name === 'visitors');
  const days = await planRange(sql, scope, { setSessions: true, entry: true, patch: visitorsOnly });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const sets = family
    ? sql`p.set_id in (${setIds(sql, project, family.sets, scope)})`
    : crossPairSql(sql, project, 'p', scope.filters);
  const rolled = (rolledDays: string[]) => {
    const rolledPlan = { ...days, rolled: rolledDays };
    const everyPage = { day: sql`null::text` };
    return {
      rows: sql`
        select p.page as k, p.day, p.pageviews, p.events, p.visitors
        from ${sql(family ? family.entry : 'rollup_day_cross_entry')} p
        where p.project_id = ${project} and p.day = any(${rolledDays}::date[]) and p.kind = ${spec.kind}
          and ${selectionSql(sql, days, 'p')} and ${sets}`,
      base: family
        ? familyRows(sql, project, family, rolledPlan, scope.filters, everyPage)
        : crossRows(sql, project, rolledPlan, scope.filters, everyPage),
    };
  };
  // Each event keyed by its session's page now: the raw part's looked up per event, the split sessions'
  // once a session. Their events are found through the sessions key (a join, as entry.ts does): a set
  // membership test would scan every event of the range.
  const pageOf = (id: Fragment) =>
    sql`(select s.${sql(spec.column)} from sessions s where s.project_id = ${project} and s.id = ${id})`;
  const splitIds = sql`
    select distinct session_id from rollup_day_split_sessions where project_id = ${project} and day = any(${days.rolled}::date[])`;
  const split = sql`select i.session_id, ${pageOf(sql`i.session_id`)} as session_page from (${splitIds}) i`;
  const splitEvents = sql`
    select e.*, i.session_page from events e join (${split}) i on i.session_id = e.session_id
    where ${whereSql(sql, scope)} and not (${rawWhereSql(sql, scope, days)})`;
  // The base of the split sessions' rows holds their visitors too, though the rolled base has them: added,
  // their pairs are looked for in the rolled rows on the days their visitors were seen (value-rows.ts
  // withAdded); kept, counted with the rolled rows.
  const sideOf = (events: Fragment) => ({
    rows: rawValueRowsSql(sql, sql`e.session_page`, sql`(${events}) e`, sql`true`),
    base: rawValueRowsSql(sql, sql`null::text`, sql`(${events}) e`, sql`true`),
  });
  const question = `${dimension}:${family ? family.label : 'cross'}:${printed(scope.filters)}`;
  // The late days' marked events add their visitors to the base (the family's rows hold what folds added);
  // their pairs come with the touched visitors' (lateEntryVisitors).
  const late = days.late.length > 0 ? lateEntryVisitors(sql, scope, days, spec.column) : undefined;
  const marked = rawValueRowsSql(
    sql,
    sql`null::text`,
    sql`(${lateEventsSql(sql, scope, days)}) e`,
    filtersSql(sql, scope.filters),
  );
  // The session metrics beside: the rows' values come from valueRowGroups, visitors at least.
  const counts = metrics.filter((m) => VALUE_ROW_METRICS.has(m.name));
  const valueMetrics = counts.length > 0 ? counts : [parseMetric('visitors')!];
  const withSessions = async (
    grouped: Promise<{ grouped: Fragment }>,
    events: Fragment,
  ): Promise<{ grouped: Fragment }> => {
    if (valueMetrics.length === metrics.length) return grouped;
    const sessions = entrySessionsSql(sql, scope, days, { family, spec, events });
    return { grouped: withSessionMetrics(sql, (await grouped).grouped, valueMetrics, sessions, metrics) };
  };
  if (days.raw.length === 0) {
    // Over rolled days alone the split sessions are kept in the count with the days' rows, under a digest
    // of their pages now (as entry.ts keeps them without filters): a warm read sums rows instead of
    // looking for each split session's pairs in them (0.42 s of 0.55 at 10M events under device=mobile).
    const [found] = await sql<{ print: string }[]>`
      select md5(coalesce(string_agg(i.session_id || '=' || coalesce(quote_literal(i.session_page), 'null'), ','
        order by i.session_id), '')) as print
      from (${split}) i`;
    const grouped = valueRowGroups(
      sql,
      project,
      days,
      question,
      rolled,
      late ? { rows: marked, base: marked } : null,
      valueMetrics,
      { ...sideOf(splitEvents), print: found!.print },
      late,
    );
    return withSessions(grouped, sql`select e.session_id, e.ts, e.name from (${splitEvents}) e`);
  }
  const events = sql`
    select e.*, ${pageOf(sql`e.session_id`)} as session_page from events e where ${rawWhereSql(sql, scope, days, true)}
    union all ${splitEvents}`;
  const side = sideOf(events);
  const added = late ? { rows: side.rows, base: sql`${side.base} union all ${marked}` } : side;
  // The sessions' facts need each session's page once, not each event's.
  const sessionEvents = sql`
    select e.session_id, e.ts, e.name from events e where ${rawWhereSql(sql, scope, days, true)}
    union all select e.session_id, e.ts, e.name from (${splitEvents}) e`;
  const grouped = valueRowGroups(sql, project, days, question, rolled, added, valueMetrics, undefined, late);
  return withSessions(grouped, sessionEvents);
}

/**
 * Rows (k, sessions, pageviews, bounces, duration_ms) of the entry or exit page read's sessions under its
 * filters, where a session is its matching events (stats.ts sessionsSql) keyed by its page: over the rolled
 * days, the sessions that lie within their day and are pure in class and in the rows' sets, summed in the
 * rows (0098); those that mix sets (or class), their matching parts (rollup_day_session_parts) combined per
 * session, keyed by the sessions row's page (a rolled day's sessions within it have the page they were
 * counted under: one a later event moved or split makes the day read from events, segments.ts), less the
 * day's listed split sessions, as the rows leave them out; and the split sessions and the raw part,
 * `events` (session_id, ts, name), grouped per session and keyed by its page now.
 */
function entrySessionsSql(
  sql: Sql,
  scope: Scope,
  days: Plan,
  opts: { family: Family | undefined; spec: { column: string; kind: number }; events: Fragment },
): Fragment {
  const project = scope.projectIds[0]!;
  const { family, spec } = opts;
  const sets = family
    ? sql`r.set_id in (${setIds(sql, project, family.sets, scope)})`
    : crossPairSql(sql, project, 'r', scope.filters);
  // Parts carry both sets: the family's filters select its sets, the other family's are all in.
  const mixed = family ? sql`and p.${sql(family.sets === 'rollup_dim_sets' ? 'dim_mixed' : 'acq_mixed')}` : sql``;
  const facts = sql`count(*) filter (where x.pageviews = 1 and x.custom = 0), sum(extract(epoch from x.last_ts - x.first_ts) * 1000)`;
  return sql`
    select r.page as k, r.sessions, r.session_pageviews as pageviews, r.bounces, r.duration_ms
    from ${sql(family ? family.entry : 'rollup_day_cross_entry')} r
    where r.project_id = ${project} and r.day = any(${days.rolled}::date[]) and r.kind = ${spec.kind}
      and ${selectionSql(sql, days, 'r')} and ${sets} and r.sessions > 0
    union all
    select s.${sql(spec.column)}, count(*), sum(x.pageviews), ${facts}
    from (
      select p.day, p.session_id, min(p.first_ts) as first_ts, max(p.last_ts) as last_ts, sum(p.pageviews) as pageviews,
        sum(p.custom) as custom, sum(p.active) as active
      from rollup_day_session_parts p
      where p.project_id = ${project} and p.day = any(${days.rolled}::date[]) and ${selectionSql(sql, days, 'p')}
        ${mixed} and ${crossPairSql(sql, project, 'p', scope.filters)}
      group by 1, 2
    ) x
    join sessions s on s.project_id = ${project} and s.id = x.session_id
      and s.started_at >= (x.day::timestamp at time zone 'UTC') and s.last_activity < ((x.day + 1)::timestamp at time zone 'UTC')
    where x.active > 0 and s.${sql(spec.column)} is not null and not exists (
      select 1 from rollup_day_split_sessions sp where sp.project_id = ${project} and sp.day = x.day and sp.session_id = x.session_id)
    group by 1
    union all
    select x.session_page, count(*), sum(x.pageviews), ${facts}
    from (
      select x.*, (select s.${sql(spec.column)} from sessions s where s.project_id = ${project} and s.id = x.session_id)
        as session_page
      from (
        select e.session_id, min(e.ts) as first_ts, max(e.ts) as last_ts,
          count(*) filter (where e.name = 'pageview') as pageviews,
          count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
          count(*) filter (where e.name <> 'engagement') as active
        from (${opts.events}) e
        group by 1
      ) x
      where x.active > 0
    ) x
    where x.session_page is not null
    group by 1`;
}

/**
 * The late days of an entry or exit page read under filters (visitors alone): the visitors of the sessions
 * their marks and lists name (late.ts late_keys; a session mark names a session stretched into another day)
 * and of their split sessions (a folded session mark leaves no mark, but the fold lists the session as
 * split, and the rows may hold it as lying within the day: 0093 makes such a day late), and those
 * visitors' pairs now: every matching event of the range keyed by its session's page as the raw path keys
 * it, found through the sessions of each visitor, not the range's events. Any other visitor's pairs in the
 * late days' rows are as they are now.
 */
function lateEntryVisitors(sql: Sql, scope: Scope, days: Plan, column: string): LateVisitors {
  const project = scope.projectIds[0]!;
  return {
    visitors: sql`
      with ${lateKeysCte(sql, scope, days)}
      select s.visitor_id from (
        select session_id from late_keys
        union
        select session_id from rollup_stale_days
        where project_id = ${project} and day = any(${days.late}::date[]) and session_id is not null
        union
        select session_id from rollup_day_split_sessions where project_id = ${project} and day = any(${days.late}::date[])
      ) t join sessions s on s.project_id = ${project} and s.id = t.session_id`,
    // Each session's events by the sessions key (`offset 0` keeps the subquery a probe per session): joined,
    // a list of 1,800 visitors at 1M events was planned as a hash join over every event of the range (0.3–0.5
    // s against 20 ms).
    now: (ids) => sql`
      select s.${sql(column)} as k, e.h
      from sessions s cross join lateral (
        select hashtextextended(e.visitor_id, 0) as h from events e
        where e.session_id = s.id and ${whereSql(sql, scope)} and e.name <> 'engagement'
        offset 0
      ) e
      where s.project_id = ${project} and s.visitor_id = any(${ids}::text[]) and s.${sql(column)} is not null`,
  };
}

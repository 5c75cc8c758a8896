// The page breakdown's rows (key = events.path) from the page day rollups, in the shape of metrics.ts
// groupedSql, for one project and the metrics the rollups carry; the range's raw part (segments.ts) from
// events as the builder would count it; under filters on the visitor-level or the acquisition values,
// visitors, pageviews and events from the per-set page rows (set-values.ts), and with the session or page
// metrics, the page facts per set (set-pages.ts), or under `page=X` alone or beside one family's filters X's
// one row (onePageGroups); under filters on the event name, visitors, pageviews and events from the path
// rows per name (rollupEventPageGroups). Null when they cannot answer.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import { parseMetric, type Metric } from '../metrics.ts';
import { pageEventColumns, pageFactsSql, pageFixCtes, timeOnPageSql } from './page-fix.ts';
import { keptOverRolled } from './range-values.ts';
import { addedEventsSql, hasRawPart, planRange, rawCtes, rawWhereSql, type Plan } from './segments.ts';
import { lateSessionEventsSql } from './late.ts';
import { splitCtes } from './split.ts';
import { planVisitors } from './visitors.ts';
import { rawValueRowsSql, seenOn, selectionSql, valueRowGroups, VALUE_ROW_METRICS } from './value-rows.ts';
import { SESSION_METRICS } from './eligible.ts';
import { rollupFilteredPageGroups } from './set-values.ts';
import { nameRowsSql } from './props.ts';
import { rollupFilteredPageFacts } from './set-pages.ts';
import { rollupFilteredSessionAgg } from './set-sessions.ts';
import { crossedOf, familyOf, printed } from './dims.ts';

const METRICS = new Set([...SESSION_METRICS, 'time_on_page', 'scroll_depth']);
/** The names the path rows per name leave out (0100). */
const NO_PATH_ROWS = new Set(['pageview', 'engagement']);

/** Wrapped in an object: a fragment is a thenable, which an async function would run instead of return. */
export async function rollupPageGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || metrics.some((m) => !METRICS.has(m.name))) return null;
  if (scope.filters.length > 0)
    return metrics.every((m) => VALUE_ROW_METRICS.has(m.name))
      ? ((await rollupFilteredPageGroups(sql, scope, metrics)) ?? rollupEventPageGroups(sql, scope, metrics))
      : onePageFilter(scope)
        ? onePageGroups(sql, scope, metrics)
        : rollupFilteredPageFacts(sql, scope, metrics);
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const raw = hasRawPart(days);
  const visitors = await pageVisitors(sql, scope, days);
  const all = await planVisitors(sql, scope, days);
  const sessions = sql`(p.sessions + coalesce(f.sessions, 0))`;
  const mean = (sum: Fragment, n: Fragment) => sql`case when ${n} > 0 then ${sum} / ${n} else 0 end`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`v.visitors::float8`,
      pageviews: sql`p.pageviews::float8`,
      events: sql`p.events::float8`,
      sessions: sql`${sessions}::float8`,
      bounce_rate: mean(sql`(p.bounces + coalesce(f.bounces, 0))::numeric`, sql`${sessions}::numeric`),
      session_duration: mean(sql`(p.duration_ms + coalesce(f.duration_ms, 0))`, sql`${sessions}::numeric`),
      pages_per_session: mean(
        sql`(p.session_pageviews + coalesce(f.session_pageviews, 0))::float8`,
        sql`${sessions}::float8`,
      ),
      time_on_page: mean(
        sql`(p.time_sum + coalesce(f.time_sum, 0))`,
        sql`(p.time_count + coalesce(f.time_count, 0))::float8`,
      ),
      scroll_depth: mean(
        sql`(p.scroll_sum + coalesce(f.scroll_sum, 0))`,
        sql`(p.scroll_count + coalesce(f.scroll_count, 0))::float8`,
      ),
    })[m.name]!;
  const values = metrics.map((m) => sql`(${value(m)})::float8`).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with ${raw ? sql`${rawCtes(sql, scope, days)}, ${rawPageCtes(sql, scope, days)},` : sql``}
    ${splitCtes(sql, scope, days, raw)}, ${pageFixCtes(sql, scope)}, more as (${all.more}),
    p as (
      select page, sum(pageviews) as pageviews, sum(events) as events, sum(sessions) as sessions, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms, sum(session_pageviews) as session_pageviews, sum(time_sum) as time_sum,
        sum(time_count) as time_count, sum(scroll_sum) as scroll_sum, sum(scroll_count) as scroll_count
      from (
        select page, pageviews, events, sessions, bounces, duration_ms, session_pageviews, time_sum, time_count, scroll_sum, scroll_count
        from rollup_day_pages
        where project_id = ${project} and day = any(${days.rolled}::date[]) and sel = ${days.sel}
        ${raw ? sql`union all select * from raw_pages` : sql``}
      ) x
      group by 1
    ), v as (
      select page, visitors from unnest(${Object.keys(visitors)}::text[], ${Object.values(visitors)}::int[]) as c(page, visitors)
    )
    select p.page as key, v.visitors, (${all.rolled.get(project)!} + (select coalesce(sum(n), 0) from more))::int as all_visitors, array[${values}]::float8[] as values
    from p join v on v.page = p.page left join page_fix f on f.path = p.page`,
  };
}

/** `page=X`, alone or beside one family's filters or both: the breakdown's one row is X's. */
function onePageFilter(scope: Scope): boolean {
  const pages = scope.filters.filter((f) => f.dimension === 'page');
  const others = scope.filters.filter((f) => f.dimension !== 'page');
  return (
    pages.length === 1 &&
    !pages[0]!.exclude &&
    (others.length === 0 || familyOf(others) !== undefined || crossedOf(others))
  );
}

/**
 * The page breakdown under `page=X`, alone or beside one family's filters, whose one row is X's, with any
 * of its metrics: visitors, views and events from the per-set page rows of X (set-values.ts); the session
 * metrics are the statistic block's under the filters (a session is its events on X that match the others,
 * and every such session counts for X: set-sessions.ts, the facts per value and set); the page facts are
 * X's own under the other filters (they are sequenced over every event of the session and kept by the
 * pageview's path and values, which the page filter then keeps whole): the page rollups' without them, the
 * page facts per set under them. Null when one of them cannot answer.
 */
async function onePageGroups(sql: Sql, scope: Scope, metrics: Metric[]): Promise<{ grouped: Fragment } | null> {
  const counts = await rollupFilteredPageGroups(sql, scope, COUNTS);
  const sessions = metrics.some((m) => SESSION_METRICS.has(m.name))
    ? await rollupFilteredSessionAgg(sql, scope, () => sql`null::timestamp`)
    : { rows: sql`select 0 as sessions, 0 as pageviews, 0 as bounces, 0 as duration_ms` };
  const others = { ...scope, filters: scope.filters.filter((f) => f.dimension !== 'page') };
  const facts = !metrics.some((m) => m.family === 'page')
    ? { grouped: sql`select null::text as key, array[0, 0]::float8[] as values where false` }
    : others.filters.length === 0
      ? await rollupPageGroups(sql, others, FACTS)
      : await rollupFilteredPageFacts(sql, others, FACTS);
  if (!counts || !sessions || !facts) return null;
  const mean = (sum: Fragment, n: Fragment) => sql`case when ${n} > 0 then ${sum} / ${n} else 0 end`;
  const value = (m: Metric): Fragment =>
    ({
      visitors: sql`c.visitors::float8`,
      pageviews: sql`c.values[2]`,
      events: sql`c.values[3]`,
      sessions: sql`s.sessions::float8`,
      bounce_rate: mean(sql`s.bounces::numeric`, sql`s.sessions::numeric`),
      session_duration: mean(sql`s.duration_ms::numeric`, sql`s.sessions::numeric`),
      pages_per_session: mean(sql`s.pageviews::float8`, sql`s.sessions::float8`),
      time_on_page: sql`coalesce(f.values[1], 0)`,
      scroll_depth: sql`coalesce(f.values[2], 0)`,
    })[m.name]!;
  const values = metrics.map((m) => sql`(${value(m)})::float8`).reduce((a, b) => sql`${a}, ${b}`);
  return {
    grouped: sql`
    with c as (${counts.grouped}), s as (
      select coalesce(sum(g.sessions), 0) as sessions, coalesce(sum(g.pageviews), 0) as pageviews,
        coalesce(sum(g.bounces), 0) as bounces, coalesce(sum(g.duration_ms), 0) as duration_ms
      from (${sessions.rows}) g
    ), f as (${facts.grouped})
    select c.key, c.visitors, c.all_visitors, array[${values}]::float8[] as values
    from c cross join s left join f on f.key = c.key`,
  };
}

const COUNTS = ['visitors', 'pageviews', 'events'].map((m) => parseMetric(m)!);
const FACTS = ['time_on_page', 'scroll_depth'].map((m) => parseMetric(m)!);

/**
 * The page rows of the range's raw part (segments.ts), as build_rollup_page_days.sql builds a day's under
 * one selection: raw_pages (page and the columns of rollup_day_pages, to add). Reads raw_sd of rawCtes.
 * The late days' share (late.ts) is each touched session-day's rows now (w = 1) and as the rollup counted
 * them, without the marked events (w = -1). A merged session (late.ts late_merged) is its held pages (k's
 * paths) both ways, and, for the page facts, its last held pageview carrying the reports after it both
 * ways, followed by its marked events now: the pages before it keep their facts.
 */
function rawPageCtes(sql: Sql, scope: Scope, plan: Plan): Fragment {
  const time = timeOnPageSql(sql);
  const late =
    plan.late.length === 0
      ? sql``
      : sql`union all select v.w, ${pageEventColumns(sql)}
      from (${lateSessionEventsSql(sql, scope)}) e, (values (1), (-1)) v(w) where v.w = 1 or not e.late
      union all select v.w, project_id, session_id, day, (k).lp_id, (k).lp_ts, 'pageview', (k).lp_path, (k).lp_time,
        (k).lp_scroll
      from late_merged, (values (1), (-1)) v(w) where (k).lp_ts is not null
      union all select 1, project_id, session_id, day, id, ts, name, path, time_ms, scroll from late_me
      where merged and in_scope`;
  return sql`
    rev as materialized (
      select 1 as w, ${pageEventColumns(sql)} from events e where ${rawWhereSql(sql, scope, plan)}
      ${late}
    ), raw_touched as (
      select distinct project_id, day, session_id, w, path from rev where name <> 'engagement' and path is not null
      ${
        plan.late.length === 0
          ? sql``
          : sql`union select project_id, day, session_id, x.w, p
      from late_merged, unnest((k).paths) p, (values (1), (-1)) x(w)`
      }
    ), raw_psess as (
      select t.path, sum(t.w) as sessions, coalesce(sum(t.w) filter (where s.pageviews = 1 and s.custom = 0), 0) as bounces,
        sum(t.w * extract(epoch from s.last_ts - s.first_ts) * 1000) as duration_ms, sum(t.w * s.pageviews) as session_pageviews
      from raw_touched t join raw_sd s using (project_id, day, session_id, w)
      group by 1
    ), raw_pcount as (
      select path, coalesce(sum(w) filter (where name = 'pageview'), 0) as pageviews, sum(w) as events
      from rev where name <> 'engagement' and path is not null group by 1
    ), raw_facts as (
      select path, sum(w * ${time}) as time_sum, sum(w) filter (where ${time} is not null) as time_count,
        sum(w * scroll_depth) as scroll_sum, sum(w) filter (where scroll_depth is not null) as scroll_count
      from (${pageFactsSql(sql, sql`project_id, session_id, day, w`, 'rev', 'w')}) f
      where name = 'pageview' and path is not null group by 1
    ), raw_pages as (
      -- a page a merged session touched before its marked events has sessions' sums to change and no event
      select path as page, coalesce(c.pageviews, 0) as pageviews, coalesce(c.events, 0) as events,
        coalesce(p.sessions, 0) as sessions, coalesce(p.bounces, 0) as bounces,
        coalesce(p.duration_ms, 0) as duration_ms, coalesce(p.session_pageviews, 0) as session_pageviews,
        coalesce(f.time_sum, 0) as time_sum, coalesce(f.time_count, 0) as time_count,
        coalesce(f.scroll_sum, 0) as scroll_sum, coalesce(f.scroll_count, 0) as scroll_count
      from raw_pcount c full join raw_psess p using (path) full join raw_facts f using (path)
    )`;
}

/**
 * Distinct visitors per page over the range. The rolled days' counts are kept per range (range-values.ts,
 * named by the days left out; after a rebuild of yesterday or today, the settled days' counts plus the
 * recent days' new pairs); the raw part adds its (page, visitor) pairs that no rolled day has.
 */
async function pageVisitors(sql: Sql, scope: Scope, plan: Plan): Promise<Record<string, number>> {
  const project = scope.projectIds[0]!;
  const bit = 1 << plan.sel;
  const counted = async (days: string[], since: string) => {
    const rows = await sql<{ page: string; visitors: number; settled: number }[]>`
      select page, count(*)::int as visitors, count(*) filter (where old)::int as settled from (
        select page, visitor_hash, bool_or(day < ${since}::date) as old from rollup_day_page_visitors
        where project_id = ${project} and day = any(${days}::date[]) and sel_mask & ${bit} <> 0
        group by 1, 2
      ) x group by 1`;
    const of = (n: (r: (typeof rows)[number]) => number) =>
      Object.fromEntries(rows.filter((r) => n(r) > 0).map((r) => [r.page, n(r)])) as Record<string, number>;
    return { all: of((r) => r.visitors), settled: of((r) => r.settled) };
  };
  const rolled = await keptOverRolled(sql, project, plan, 'page_visitors', {
    both: counted,
    add: async (settled, split) => {
      const pairs = await sql<Pair[]>`
        select distinct page, visitor_hash::text as h from rollup_day_page_visitors
        where project_id = ${project} and day = any(${split.recent}::date[]) and sel_mask & ${bit} <> 0`;
      return added(settled, await newPairs(sql, project, plan.sel, pairs, split.settled));
    },
  });
  if (!hasRawPart(plan)) return rolled;
  const pairs = await sql<Pair[]>`
    select distinct e.path as page, hashtextextended(e.visitor_id, 0)::text as h from ${addedEventsSql(sql, scope, plan)} e
    where e.name <> 'engagement' and e.path is not null`;
  return added(rolled, await newPairs(sql, project, plan.sel, pairs, plan.rolled));
}

/** A (page, visitor hash) pair; the hash as text (64-bit). */
type Pair = { page: string; h: string };

function added(counts: Record<string, number>, more: Map<string, number>): Record<string, number> {
  const out = new Map(Object.entries(counts));
  for (const [page, n] of more) out.set(page, (out.get(page) ?? 0) + n);
  return Object.fromEntries(out);
}

/**
 * Per page, the pairs that no row of `days` holds. Only the visitors those days saw at all
 * (rollup_day_visitors, through its hash index) can be there, and each of their pairs is probed on the days
 * they were seen, one by one through the primary key of rollup_day_page_visitors: for 62k probes at 10M
 * events the planner would rather hash the whole table (1.6 s), and a probe of every pair on every day of
 * a month cost 2.3 s. The sets go as parameters between the statements, so each is planned for its actual
 * size (value-rows.ts withAdded).
 */
async function newPairs(
  sql: Sql,
  project: string,
  sel: number,
  pairs: Pair[],
  days: string[],
): Promise<Map<string, number>> {
  const bit = 1 << sel;
  const { byHash: seen } = await seenOn(sql, project, sel, [...new Set(pairs.map((p) => p.h))], days);
  const probe = { days: [] as string[], pages: [] as string[], hashes: [] as string[] };
  for (const p of pairs)
    for (const day of seen.get(p.h) ?? []) (probe.days.push(day), probe.pages.push(p.page), probe.hashes.push(p.h));
  const had = new Set<string>(); // `${h}\n${page}` (a hash holds no line break)
  if (probe.days.length > 0)
    for (const r of await sql<Pair[]>`
      select distinct q.page, q.h::text as h
      from unnest(${probe.days}::date[], ${probe.pages}::text[], ${probe.hashes}::bigint[]) as q(day, page, h)
      cross join lateral (
        select 1 from rollup_day_page_visitors r
        where r.project_id = ${project} and r.day = q.day and r.page = q.page and r.visitor_hash = q.h
          and r.sel_mask & ${bit} <> 0
        limit 1) r`)
      had.add(`${r.h}\n${r.page}`);
  const out = new Map<string, number>();
  for (const p of pairs) if (!had.has(`${p.h}\n${p.page}`)) out.set(p.page, (out.get(p.page) ?? 0) + 1);
  return out;
}

/**
 * The page breakdown (visitors, views, events per path) under filters on the event name, alone or beside
 * filters on the page (a name's row of the Events panel clicked, then a page's), from the path rows per
 * name (0100): the filters apply to the rows' name and path. The share's base is the rows themselves under
 * a page filter; otherwise every event of the names, with a path or without, as the prop rollups' per-name
 * rows hold them. Null for an excluded name, a name the rows leave out (`pageview`, `engagement`), an
 * excluded page, another filter or another metric.
 */
export async function rollupEventPageGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const names = scope.filters.filter((f) => f.dimension === 'event');
  const pages = scope.filters.filter((f) => f.dimension === 'page');
  if (
    scope.projectIds.length !== 1 ||
    metrics.some((m) => !VALUE_ROW_METRICS.has(m.name)) ||
    names.length === 0 ||
    names.some((f) => f.exclude || NO_PATH_ROWS.has(f.value)) ||
    pages.some((f) => f.exclude) ||
    names.length + pages.length < scope.filters.length
  )
    return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  // Rows are aliased `e` and carry `name` and `path`, so the events' filter SQL applies to them.
  const where = filtersSql(sql, scope.filters);
  const rolled = (rolled: string[]) => {
    const rows = sql`
      select e.path as k, e.day, 0::bigint as pageviews, e.events, e.visitors from rollup_day_path_names e
      where e.project_id = ${project} and e.day = any(${rolled}::date[]) and ${selectionSql(sql, days, 'e')}
        and ${where}`;
    const base = pages.length > 0 ? rows : nameRowsSql(sql, project, days, rolled, sql`null::text`, where);
    return { rows, base };
  };
  const events = sql`${addedEventsSql(sql, scope, days)} e`;
  const added = hasRawPart(days) && {
    rows: rawValueRowsSql(sql, sql`e.path`, events, where),
    base: rawValueRowsSql(sql, sql`null::text`, events, where),
  };
  const question = `event_pages:${printed(scope.filters)}`;
  return valueRowGroups(sql, project, days, question, rolled, added || null, metrics);
}

// The session metrics (sessions, bounce rate, session duration, pages per session) of a breakdown by a
// visitor-level or acquisition dimension, without filters or under filters on those dimensions (and
// `page=X`), from the session facts per set of values (0089, sql/queries/build_rollup_set_sessions.sql;
// under `page=X` the path's, 0097 and 0099) grouped by the value their set holds instead of selected by it.
// The raw path (metrics.ts groupedSql) counts a session under each value its non-engagement events carry,
// with all its events that match the filters. A session-day whose events share one class and one set of
// the dimension's family (or, beside filters on the other family, one pair of sets) is one cell's, its
// value the set's; one that mixes them is kept as its parts (one per class and pair of sets), which are
// combined per session-day and counted under each value their active parts carry. The sessions that cross
// midnight are made whole value by value (split.ts's split sessions, keyed by their values instead of a bucket).
// A day with late or folded events adds each session-day they touch as it is now, less as the facts hold
// it; the days pending or not counted and the parts of the range that are not whole days are read from
// events, keyed the same way.
import type { Sql } from 'postgres';
import { dimensionSql, type Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import { parseMetric, type Metric } from '../metrics.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';
import {
  ACQUISITION_DIMENSIONS,
  FAMILIES,
  ROLLUP_DIMENSIONS,
  VISITOR_DIMENSIONS,
  printed,
  rollupDimensionGroups,
} from './dims.ts';
import { lateFilteredCtes } from './late.ts';
import { settledSumsSql } from './range-values.ts';
import { SESSION_SUMS } from './set-sessions.ts';
import { planRange, rawWhereSql } from './segments.ts';
import { splitCtes } from './split.ts';
import { selectionSql, VALUE_ROW_METRICS } from './value-rows.ts';

/** The session metrics these rows carry, as sums per value. */
export const SESSION_ROW_METRICS = new Set(['sessions', 'bounce_rate', 'session_duration', 'pages_per_session']);

/**
 * A breakdown by one of the nineteen dimensions with session metrics beside visitors, pageviews or events:
 * the value rows' groups (dims.ts) and these session rows. Null when either cannot answer (a filter on
 * another dimension, the page or the event; several projects; a metric neither carries).
 */
export async function rollupDimensionSessionGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const counts = metrics.filter((m) => VALUE_ROW_METRICS.has(m.name));
  if (counts.length === metrics.length || metrics.some((m) => !counts.includes(m) && !SESSION_ROW_METRICS.has(m.name)))
    return null;
  const sessions = await dimensionSessionsSql(sql, scope, dimension);
  if (!sessions) return null;
  const valueMetrics = counts.length > 0 ? counts : [parseMetric('visitors')!];
  const grouped = await rollupDimensionGroups(sql, scope, dimension, valueMetrics);
  return grouped && { grouped: withSessionMetrics(sql, grouped.grouped, valueMetrics, sessions.rows, metrics) };
}

/**
 * Rows (k, sessions, pageviews, bounces, duration_ms) of the scope's sessions keyed by the dimension's
 * values, to be summed per value; null when they cannot answer. Wrapped in an object: a fragment is a
 * thenable, which an async function would run instead of return.
 */
async function dimensionSessionsSql(sql: Sql, scope: Scope, dimension: string): Promise<{ rows: Fragment } | null> {
  const family = FAMILIES.find((f) => f.dimensions.has(dimension));
  // Under `page=X` a session is its events on X: the path's sessions per set (0097) or pair of sets (0099)
  // and the parts of those that mix them (rollup_day_value_parts).
  const paths = scope.filters.filter((f) => f.dimension === 'page');
  const rest = scope.filters.filter((f) => f.dimension !== 'page');
  if (!family || scope.projectIds.length !== 1 || paths.some((f) => f.exclude)) return null;
  if (rest.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const plan = await planRange(sql, scope, { setSessions: true, patch: true });
  if (!plan) return null;
  const project = scope.projectIds[0]!;
  const visitorLevel = family.sets === 'rollup_dim_sets';
  // Beside filters on the other family, the cells per pair of sets and every part.
  const own = rest.every((f) => family.dimensions.has(f.dimension));
  const value = sql`${dimensionSql(sql, dimension)}::text`;
  const side = (dimensions: Set<string>, table: string, keyed: boolean) =>
    sql`select e.id, ${keyed ? value : sql`null::text`} as k from ${sql(table)} e
      where e.project_id = ${project} and ${filtersSql(
        sql,
        rest.filter((f) => dimensions.has(f.dimension)),
      )}`;
  const dimSide = side(VISITOR_DIMENSIONS, 'rollup_dim_sets', visitorLevel);
  const acqSide = side(ACQUISITION_DIMENSIONS, 'rollup_acq_sets', !visitorLevel);
  const days = (alias: string, rolled = plan.rolled) =>
    sql`${sql(alias)}.project_id = ${project} and ${sql(alias)}.day = any(${rolled}::date[]) and ${selectionSql(sql, plan, alias)}`;
  const onPath = paths.map((f) => sql`and c.path = ${f.value}`).reduce((a, b) => sql`${a} ${b}`, sql``);
  const facts =
    paths.length > 0
      ? sql`c.path_sessions as sessions, c.path_pageviews as pageviews, c.path_bounces as bounces, c.path_duration_ms as duration_ms`
      : sql`c.sessions, c.pageviews, c.bounces, c.duration_ms`;
  const table = (kind: 'dim' | 'acq' | 'cross') =>
    sql(paths.length > 0 ? `rollup_day_${kind}_page_facts` : `rollup_day_${kind}_sessions`);
  const cellsOf = (rolled: string[]) =>
    own
      ? sql`
      select s.k, ${facts}
      from ${table(visitorLevel ? 'dim' : 'acq')} c
      join (${visitorLevel ? dimSide : acqSide}) s on s.id = c.set_id
      where ${days('c', rolled)} ${onPath}`
      : sql`
      select coalesce(v.k, a.k) as k, ${facts}
      from ${table('cross')} c
      join (${dimSide}) v on v.id = c.dim_set_id join (${acqSide}) a on a.id = c.acq_set_id
      where ${days('c', rolled)} ${onPath}`;
  // Their sums per value over the days before yesterday kept, as the statistic block's (set-sessions.ts).
  const { rows: cells } = await settledSumsSql(
    sql,
    project,
    plan,
    `dim_sessions:${dimension}:${printed(scope.filters)}`,
    ['k', 'text'],
    SESSION_SUMS,
    cellsOf,
  );
  // The parts of the session-days the cells do not hold whole: mixed in class or in the family's sets (in
  // either, beside the other family's filters), of the sets the filters select.
  const familyMixed = own ? sql`p.${sql(visitorLevel ? 'dim_mixed' : 'acq_mixed')}` : null;
  const partRows =
    paths.length > 0
      ? sql`
      select * from rollup_day_value_parts p
      where ${days('p')} and p.kind = 0 ${paths.map((f) => sql`and p.value = ${f.value}`).reduce((a, b) => sql`${a} ${b}`)}
        and (p.class_mixed or ${familyMixed ?? sql`p.dim_mixed or p.acq_mixed`})`
      : sql`
      select * from rollup_day_session_parts p where ${days('p')} ${familyMixed ? sql`and ${familyMixed}` : sql``}`;
  const parts = sql`
    select p.day, p.session_id, min(p.first_ts) as first_ts, max(p.last_ts) as last_ts, sum(p.pageviews) as pageviews,
      sum(p.custom) as custom, sum(p.active) as active,
      array_agg(distinct coalesce(v.k, a.k)) filter (where p.active > 0 and coalesce(v.k, a.k) is not null) as keys
    from (${partRows}) p
    join (${dimSide}) v on v.id = p.dim_set_id join (${acqSide}) a on a.id = p.acq_set_id
    group by 1, 2`;
  // The raw part's session-days (w = 1), and each session-day the late days' events touch as it is now
  // (w = 1) and as the facts hold it, without them (w = -1): late.ts lateFilteredCtes.
  const late = plan.late.length > 0;
  const raw = plan.raw.length > 0 || late;
  const added = [
    ...(plan.raw.length > 0
      ? [sessionDays(sql, value, sql`events e where ${rawWhereSql(sql, scope, plan, true)}`, 1)]
      : []),
    ...(late
      ? [
          sessionDays(sql, sql`e.k`, sql`late_ev e where true`, 1),
          sessionDays(sql, sql`e.k`, sql`late_ev e where not e.late`, -1),
        ]
      : []),
  ];
  const rows = sql`
    with ${late ? sql`${lateFilteredCtes(sql, scope, plan, value)},` : sql``}
    ${raw ? sql`raw_sd as materialized (${added.reduce((a, b) => sql`${a} union all ${b}`)}), ${rawSplitCte(sql, project)},` : sql``}
    ${splitCtes(sql, scope, plan, raw, true, value)},
    split_keys as (select distinct d.session_id, k from split_days d, unnest(d.keys) k)
    select k, sessions, pageviews, bounces, duration_ms from (${cells}) c
    union all ${keyedFacts(sql, sql`1`)} from (${parts}) x, unnest(x.keys) k where x.active > 0 group by k
    ${raw ? sql`union all ${keyedFacts(sql, sql`x.w`)} from raw_sd x, unnest(x.keys) k where x.active > 0 group by k` : sql``}
    union all ${keyedFacts(sql, sql`1`)} from split_whole x join split_keys sk using (session_id) where x.active > 0 group by k
    union all ${keyedFacts(sql, sql`-1`)} from split_days x, unnest(x.keys) k where x.active > 0 group by k`;
  return { rows };
}

/** Per session and UTC day of `from` (events aliased `e`, with a where clause): its facts and the values
 *  its non-engagement events carry, each to be counted `w` times. */
function sessionDays(sql: Sql, value: Fragment, from: Fragment, w = 1): Fragment {
  return sql`
    select e.session_id, (e.ts at time zone 'UTC')::date as day, ${w}::int as w, min(e.ts) as first_ts, max(e.ts) as last_ts,
      count(*) filter (where e.name = 'pageview') as pageviews,
      count(*) filter (where e.name <> all(${BUILT_IN_EVENTS})) as custom,
      count(*) filter (where e.name <> 'engagement') as active,
      array_agg(distinct ${value}) filter (where e.name <> 'engagement' and ${value} is not null) as keys
    from ${from}
    group by 1, 2`;
}

/** `select k, <the facts of the sessions x>`: each session-day or session row `x` counted `w` times. */
function keyedFacts(sql: Sql, w: Fragment): Fragment {
  return sql`
    select k, sum(${w}), sum(${w} * x.pageviews), coalesce(sum(${w}) filter (where x.pageviews = 1 and x.custom = 0), 0),
      sum(${w} * extract(epoch from x.last_ts - x.first_ts) * 1000)`;
}

/** The raw part's sessions that do not lie within their day, by the sessions table's span, as segments.ts
 *  rawCtes lists them for split.ts, each session's row looked up by its key: joined, the planner hashed every
 *  session of the project (212k at 1M events, 0.18 s) against a raw day's few thousand. */
function rawSplitCte(sql: Sql, project: string): Fragment {
  return sql`
    raw_split as (
      select ${project}::text as project_id, d.session_id from raw_sd d
      left join lateral (
        select s.started_at, s.last_activity from sessions s where s.project_id = ${project} and s.id = d.session_id offset 0
      ) s on true
      where d.w = 1 and (s.started_at is null or s.started_at < (d.day::timestamp at time zone 'UTC')
        or s.last_activity >= ((d.day + 1)::timestamp at time zone 'UTC'))
    )`;
}

/** The value rows' groups (`grouped`, of `valueMetrics`) with the session rows beside them, as metrics.ts
 *  groupedSql answers `metrics`: every key with a session has a visitor there. */
export function withSessionMetrics(
  sql: Sql,
  grouped: Fragment,
  valueMetrics: Metric[],
  sessions: Fragment,
  metrics: Metric[],
): Fragment {
  // Divided as the raw path's means are (avg over numeric; pages per session in float8), so they agree to
  // the last digit.
  const mean = (sum: Fragment, type: string) =>
    sql`case when s.sessions > 0 then (${sum}::${sql.unsafe(type)} / s.sessions)::float8 else 0 end`;
  const value = (m: Metric): Fragment => {
    const i = valueMetrics.findIndex((v) => v.name === m.name);
    if (i >= 0) return sql`g.values[${i + 1}]`;
    if (m.name === 'sessions') return sql`coalesce(s.sessions, 0)::float8`;
    if (m.name === 'bounce_rate') return mean(sql`s.bounces`, 'numeric');
    if (m.name === 'session_duration') return mean(sql`s.duration_ms`, 'numeric');
    return mean(sql`s.pageviews`, 'float8'); // pages_per_session
  };
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  return sql`
    select g.key, g.visitors, g.all_visitors, array[${values}]::float8[] as values
    from (${grouped}) g
    left join (
      select k, sum(sessions) as sessions, sum(pageviews) as pageviews, sum(bounces) as bounces,
        sum(duration_ms) as duration_ms
      from (${sessions}) x group by 1
    ) s on s.k = g.key`;
}

// The statistic block and the chart's session metrics under filters on the visitor-level and acquisition
// dimensions, from the session facts per set of values (0089, sql/queries/build_rollup_set_sessions.sql),
// under a filter on the page or on the event alone from the facts per value (0090), and on the page beside
// filters on one family from the path's facts per set of that family (0097), or on both families from
// those per pair of sets (0099), where a session is its events
// on the page or of that name (that match the others): each session-day's events of one value, pure in
// class (and set), are summed in that value's (and set's) cells.
// A session under a filter is its events that match (stats.ts sessionsSql), and a session-day whose events
// share one class and one set is all in or all out, so its day's cells of the matching sets sum it. One
// that mixes sets is kept as its parts (one per class and pair of sets), and the matching parts are
// combined per session; the usual mixed visit (two acquisition sets) is summed per pair of sets for
// acquisition filters. The sessions that cross midnight are made whole by the split-session correction,
// under the filters. A day with late events (marked, or folded into the day's rows since the cells were
// counted, 0091) adds their share: each session-day they touch recounted under the filters, as the cells
// hold it and as it is now (late.ts lateFilteredCtes). The part of the range the cells do not hold (a day
// not counted, a day marked whole, more late events than a patch is worth: segments.ts) is counted from
// its events under the filters.
// Distinct visitors come from the dimension rollups (dims.ts).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Filter } from '../params.ts';
import type { StatsRow } from '../stats.ts';
import {
  ACQUISITION_DIMENSIONS,
  ROLLUP_DIMENSIONS,
  VISITOR_DIMENSIONS,
  crossedOf,
  printed,
  rollupFilteredVisitors,
} from './dims.ts';
import { settledSumsSql } from './range-values.ts';
import { hasRawPart, planRange, rawCtes } from './segments.ts';
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
  // `page=X` or `event=X` alone, or `page=X` beside one family's filters or both: a session is its events on
  // X or named X (that match them), the facts per value, or per path and set or pair of sets.
  const value = valueFilters(scope.filters);
  const kind = value?.kind ?? null;
  if (kind === null && scope.filters.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const plan = await planRange(sql, scope, { setSessions: true, patch: true });
  if (!plan) return null;
  const project = scope.projectIds[0]!;
  const raw = hasRawPart(plan);
  // Filters on one family read that family's cells, and only the parts of the sessions mixed in it.
  const family =
    kind !== null
      ? 'value'
      : scope.filters.every((f) => VISITOR_DIMENSIONS.has(f.dimension))
        ? 'dim'
        : scope.filters.every((f) => ACQUISITION_DIMENSIONS.has(f.dimension))
          ? 'acq'
          : 'cross';
  const sets = setsUnder(sql, project, scope.filters);
  const days = (alias: string, rolled = plan.rolled) =>
    sql`${sql(alias)}.project_id = ${project} and ${sql(alias)}.day = any(${rolled}::date[]) and ${selectionSql(sql, plan, alias)}`;
  // The cells of `rolled`: the value's, or the family's (and the acquisition pairs). Their sums per day over
  // the days before yesterday are kept per range, selection and filters, as the page facts' are (set-pages.ts
  // keptCells), and the recent days' cells added at read time.
  const cellsOf = (rolled: string[]) => sql`
    ${family === 'value' ? valueCellsSql(sql, days('v', rolled), value!, sets) : cellsSql(sql, family, days('c', rolled), sets)}
    ${family === 'acq' ? sql`union all ${pairsSql(sql, days('p', rolled), sets.acq)}` : sql``}`;
  const { rows: cells } = await settledSumsSql(
    sql,
    project,
    plan,
    `sessions:${family}:${printed(scope.filters)}`,
    ['day', 'date'],
    SESSION_SUMS,
    cellsOf,
  );
  // The rows of the sessions these cells do not sum whole: the matching parts, combined per session.
  const parts =
    family === 'value'
      ? valuePartsSql(sql, days('v'), value!, sets)
      : sql`
      select p.day, p.session_id, p.first_ts, p.last_ts, p.pageviews, p.custom, p.active from rollup_day_session_parts p
      where ${days('p')} ${{ dim: sql`and p.dim_mixed`, acq: sql`and p.acq_mixed and not p.acq_paired`, cross: sql`` }[family]}
        and p.dim_set_id in (${sets.dim}) and p.acq_set_id in (${sets.acq})`;
  return {
    rows: sql`
    with ${raw ? sql`${rawCtes(sql, scope, plan, true)},` : sql``} ${splitCtes(sql, scope, plan, raw, true)},
    fix as (
      select c.bucket, sum(c.sessions) as sessions, sum(c.pageviews) as pageviews, sum(c.bounces) as bounces,
        sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, bucket)}) c group by 1
    ), mixed as (
      select p.day, p.session_id, min(p.first_ts) as first_ts, max(p.last_ts) as last_ts, sum(p.pageviews) as pageviews,
        sum(p.custom) as custom, sum(p.active) as active
      from (${parts}) p
      group by p.day, p.session_id
    ), t as (
      select ${bucket(sql`x.day::timestamp`)} as bucket, sum(x.sessions) as sessions, sum(x.pageviews) as pageviews,
        sum(x.bounces) as bounces, sum(x.duration_ms) as duration_ms
      from (
        ${cells}
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

/** The session facts' cells: their columns beside their day or value, and their types as kept sums. */
export const SESSION_SUMS = [
  ['sessions', 'numeric'],
  ['pageviews', 'numeric'],
  ['bounces', 'numeric'],
  ['duration_ms', 'numeric'],
] as const;

/** The ids of each family's sets its filters select. The sets are aliased `e`, so the dimension and
 *  filter SQL of the events table applies to them. */
function setsUnder(sql: Sql, project: string, filters: Filter[]): { dim: Fragment; acq: Fragment } {
  const of = (table: string, dimensions: Set<string>) =>
    sql`select e.id from ${sql(table)} e
      where e.project_id = ${project} and ${filtersSql(
        sql,
        filters.filter((f) => dimensions.has(f.dimension)),
      )}`;
  return { dim: of('rollup_dim_sets', VISITOR_DIMENSIONS), acq: of('rollup_acq_sets', ACQUISITION_DIMENSIONS) };
}

/** The cells (day, sessions, pageviews, bounces, duration_ms) of the rolled days (`days`, over alias `c`)
 *  under the filters: the family's own, or the crossed ones. */
function cellsSql(
  sql: Sql,
  family: 'dim' | 'acq' | 'cross',
  days: Fragment,
  sets: { dim: Fragment; acq: Fragment },
): Fragment {
  const columns = sql`c.day, c.sessions, c.pageviews, c.bounces, c.duration_ms`;
  if (family === 'dim')
    return sql`select ${columns} from rollup_day_dim_sessions c where ${days} and c.set_id in (${sets.dim})`;
  if (family === 'acq')
    return sql`select ${columns} from rollup_day_acq_sessions c where ${days} and c.set_id in (${sets.acq})`;
  return sql`
    select ${columns} from rollup_day_cross_sessions c
    where ${days} and c.dim_set_id in (${sets.dim}) and c.acq_set_id in (${sets.acq})`;
}

/** The facts per value (0090, 0097, 0099) the filters select: `kind` 0 under `page=X`, 1 under `event=X`, with
 *  the filters naming the value and, under `page=X`, the family whose sets the others select (`cross` when
 *  they reach into both); null otherwise (an excluded value selects the sessions' events of many values
 *  together; the facts per event name and set are not kept). */
function valueFilters(filters: Filter[]): ValueFilters | null {
  for (const [dimension, kind] of [
    ['page', 0],
    ['event', 1],
  ] as const) {
    const values = filters.filter((f) => f.dimension === dimension);
    const rest = filters.filter((f) => f.dimension !== dimension);
    if (values.length === 0 || values.some((f) => f.exclude)) continue;
    if (rest.length === 0) return { kind, values, family: null };
    if (kind === 1) return null;
    for (const [family, dimensions] of [
      ['dim', VISITOR_DIMENSIONS],
      ['acq', ACQUISITION_DIMENSIONS],
    ] as const)
      if (rest.every((f) => dimensions.has(f.dimension))) return { kind, values, family };
    if (crossedOf(rest)) return { kind, values, family: 'cross' };
  }
  return null;
}

type ValueFilters = { kind: 0 | 1; values: Filter[]; family: 'dim' | 'acq' | 'cross' | null };

/** `v.kind = <kind> and v.value = X` for each filter: one value, or none when two filters name two. */
const valuesSql = (sql: Sql, kind: number, filters: Filter[]): Fragment =>
  filters.map((f) => sql`and v.value = ${f.value}`).reduce((a, b) => sql`${a} ${b}`, sql`and v.kind = ${kind}`);

/** The parts of the rolled days (`days`, over alias `v`) of the sessions of the value the filters name that
 *  the cells do not hold: those mixed in class, or beside a family's filters those mixed in class or in
 *  that family (beside both families', in either), of the sets `sets` selects. */
function valuePartsSql(sql: Sql, days: Fragment, value: ValueFilters, sets: { dim: Fragment; acq: Fragment }) {
  const which = !value.family
    ? sql`v.class_mixed`
    : value.family === 'dim'
      ? sql`(v.class_mixed or v.dim_mixed) and v.dim_set_id in (${sets.dim})`
      : value.family === 'acq'
        ? sql`(v.class_mixed or v.acq_mixed) and v.acq_set_id in (${sets.acq})`
        : sql`(v.class_mixed or v.dim_mixed or v.acq_mixed) and v.dim_set_id in (${sets.dim})
          and v.acq_set_id in (${sets.acq})`;
  return sql`
  select v.day, v.session_id, v.first_ts, v.last_ts, v.pageviews, v.custom, v.active from rollup_day_value_parts v
  where ${days} ${valuesSql(sql, value.kind, value.values)} and ${which}`;
}

/** The cells of the rolled days (`days`, over alias `v`) of the value the filters name; beside a family's
 *  filters, the path's sessions of the sets they select, kept with that family's page facts per set (beside
 *  both families', with the page facts per pair of sets). */
function valueCellsSql(sql: Sql, days: Fragment, value: ValueFilters, sets: { dim: Fragment; acq: Fragment }) {
  if (!value.family)
    return sql`
  select v.day, v.sessions, v.pageviews, v.bounces, v.duration_ms from rollup_day_value_sessions v
  where ${days} ${valuesSql(sql, value.kind, value.values)}`;
  const paths = value.values.map((f) => sql`and v.path = ${f.value}`).reduce((a, b) => sql`${a} ${b}`);
  if (value.family === 'cross')
    return sql`
  select v.day, v.path_sessions as sessions, v.path_pageviews as pageviews, v.path_bounces as bounces,
    v.path_duration_ms as duration_ms
  from rollup_day_cross_page_facts v
  where ${days} ${paths} and v.dim_set_id in (${sets.dim}) and v.acq_set_id in (${sets.acq}) and v.path_sessions > 0`;
  return sql`
  select v.day, v.path_sessions as sessions, v.path_pageviews as pageviews, v.path_bounces as bounces,
    v.path_duration_ms as duration_ms
  from ${sql(`rollup_day_${value.family}_page_facts`)} v
  where ${days} ${paths} and v.set_id in (${sets[value.family]}) and v.path_sessions > 0`;
}

/** The acquisition pairs of the rolled days (`days`, over alias `p`) under filters on acquisition values:
 *  each pair's whole sessions when both its sets match, one part's facts when only that part's set does. */
function pairsSql(sql: Sql, days: Fragment, acq: Fragment): Fragment {
  const pick = (both: string, a: string, b: string) =>
    sql`case when a_hit and b_hit then ${sql(both)} when a_hit then ${sql(a)} when b_hit then ${sql(b)} else 0 end`;
  return sql`
    select day, ${pick('n', 'a_sessions', 'b_sessions')}, ${pick('pageviews', 'a_pageviews', 'b_pageviews')},
      ${pick('bounces', 'a_bounces', 'b_bounces')}, ${pick('duration_ms', 'a_duration_ms', 'b_duration_ms')}
    from (
      select p.*, p.a_set_id in (${acq}) as a_hit, p.b_set_id in (${acq}) as b_hit from rollup_day_acq_pairs p where ${days}
    ) p
    where a_hit or b_hit`;
}

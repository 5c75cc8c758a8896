// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// and by an acquisition one (referrer, channel, UTM …) under filters on those, from the dimension day
// rollups (sql/queries/build_rollup_dim_days.sql, build_rollup_acq_days.sql), and by either under filters
// on both families from the crossed rows (build_rollup_cross_days.sql): a 30-day read sums a few
// thousand rows (one per day, class and set of values) instead of grouping every event (value-rows.ts).
// Under a page filter (`page=X`) or event filters, alone or beside one family's filters, from that family's
// page or event name rows per set (0089, 0090), which hold the events of each path or name; beside filters
// on the other family or both, from the page or name rows per pair of sets (0094).
// The part of the range they do not hold (segments.ts) is grouped from events. Null when they cannot
// answer: another dimension or filter, a metric they do not carry, or a range without a built day.
// The families' sets also key the per-set rows of other breakdowns (set-values.ts).
import type { Sql } from 'postgres';
import { dimensionSql, type Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Filter } from '../params.ts';
import type { Metric } from '../metrics.ts';
import { planRange, type Plan } from './segments.ts';
import { ownBaseGroups, selectionSql, VALUE_ROW_METRICS } from './value-rows.ts';

/** The visitor-level dimensions rollup_dim_sets keeps, named as the events columns they copy. */
export const VISITOR_DIMENSIONS = new Set([
  'country',
  'region',
  'city',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'screen',
  'language',
  'release',
]);

/** The acquisition dimensions rollup_acq_sets keeps (0062). */
export const ACQUISITION_DIMENSIONS = new Set([
  'referrer',
  'referrer_domain',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
]);

/** Each family of sets with its day rows: a breakdown by one member filters only on members. */
export const FAMILIES = [
  {
    dimensions: VISITOR_DIMENSIONS,
    sets: 'rollup_dim_sets',
    rows: 'rollup_day_dims',
    pages: 'rollup_day_dim_pages',
    names: 'rollup_day_dim_names',
    entry: 'rollup_day_dim_entry',
    label: 'dim_visitors',
  },
  {
    dimensions: ACQUISITION_DIMENSIONS,
    sets: 'rollup_acq_sets',
    rows: 'rollup_day_acq',
    pages: 'rollup_day_acq_pages',
    names: 'rollup_day_acq_names',
    entry: 'rollup_day_acq_entry',
    label: 'acq_visitors',
  },
];

export const ROLLUP_DIMENSIONS = new Set([...VISITOR_DIMENSIONS, ...ACQUISITION_DIMENSIONS]);

export type Family = (typeof FAMILIES)[number];

/** The family every one of the filters is on, if there is one (none when there are no filters). */
export const familyOf = (filters: Filter[]): Family | undefined =>
  filters.length === 0 ? undefined : FAMILIES.find((x) => filters.every((f) => x.dimensions.has(f.dimension)));

/** The page filters (on the per-set page rows, a path a row) or the event filters (on the name rows, a
 *  name a row) of a scope, read as conditions on those rows' column. */
export type Keyed = { table: 'pages' | 'names'; column: 'path' | 'name'; filters: Filter[] };

/**
 * The scope's filters as the per-set page and name rows (0089, 0090) can take them: the page or the event
 * filters (`keyed`) and the others. Null when they cannot: `page!=X` also keeps the events without a path,
 * which the page rows leave out, and filters on both the page and the event would need rows per path and
 * name.
 */
export function keyedOf(filters: Filter[]): { keyed: Keyed | null; rest: Filter[] } | null {
  const pages = filters.filter((f) => f.dimension === 'page');
  const events = filters.filter((f) => f.dimension === 'event');
  if ((pages.length > 0 && events.length > 0) || pages.some((f) => f.exclude)) return null;
  const rest = filters.filter((f) => f.dimension !== 'page' && f.dimension !== 'event');
  if (pages.length > 0) return { keyed: { table: 'pages', column: 'path', filters: pages }, rest };
  if (events.length > 0) return { keyed: { table: 'names', column: 'name', filters: events }, rest };
  return { keyed: null, rest };
}

/** `and <alias>.<column> = X` (`<> X` excluded; the column is never null) for each keyed filter: one
 *  equality each, which an index on the column can take. */
export const keyedSql = (sql: Sql, alias: string, keyed: Keyed | null): Fragment =>
  (keyed?.filters ?? [])
    .map((f) => sql`and ${sql(alias)}.${sql(keyed!.column)} ${f.exclude ? sql`<>` : sql`=`} ${f.value}`)
    .reduce((a, b) => sql`${a} ${b}`, sql``);

/** The family whose rows read a page or event filter alone: the acquisition sets are the coarser, so a
 *  path or name has fewer rows a day in them (and an index finds a path's rows, 0090). */
export const KEYED_FAMILY = FAMILIES[1]!;

export async function rollupDimensionGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const family = FAMILIES.find((f) => f.dimensions.has(dimension));
  const split = keyedOf(scope.filters);
  if (scope.projectIds.length !== 1 || !family || !split || metrics.some((m) => !VALUE_ROW_METRICS.has(m.name)))
    return null;
  // With filters on the other family too, the crossed rows; under a page or event filter, the page or name
  // rows (the family's, or the per-pair ones).
  const crossed = split.rest.some((f) => !family.dimensions.has(f.dimension));
  if (crossed && split.rest.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  // The range's raw part (segments.ts) groups its events by the dimension's SQL, as the sets give it.
  const rolled = (rolledDays: string[]) =>
    crossed
      ? crossRows(sql, project, { ...days, rolled: rolledDays }, split.rest, { dimension }, split.keyed)
      : familyRows(sql, project, family, { ...days, rolled: rolledDays }, split.rest, { dimension }, split.keyed);
  const question = `${crossed ? 'cross' : family.label}:${dimension}:${printed(scope.filters)}`;
  return ownBaseGroups(sql, scope, days, question, rolled, sql`${dimensionSql(sql, dimension)}::text`, metrics);
}

/**
 * A timeseries of visitors, pageviews or events by day, week or month under filters on these nineteen
 * dimensions (and on the page or the event, keyedOf): the rows a breakdown under the same filters reads
 * (one family's, or the crossed ones), keyed by the bucket of their day instead of a value, and the
 * range's raw part by its events' bucket; so the distinct visitors per bucket are counted once a range and
 * kept as a breakdown's are (value-rows.ts).
 * timeseries.ts's `agg`. Null when they cannot answer.
 */
export async function rollupFilteredTimeseriesAgg(
  sql: Sql,
  scope: Scope,
  metric: Metric,
  interval: string,
): Promise<{ agg: Fragment } | null> {
  if (interval === 'hour') return null;
  const bucket = (ts: Fragment) => sql`date_trunc(${interval}, ${ts})::text`;
  const found = await filteredGroups(sql, scope, metric, `timeseries:${interval}`, bucket);
  return found && { agg: sql`select g.key::timestamp as bucket, g.values[1] as value from (${found.grouped}) g` };
}

/** The distinct visitors of the range under filters on these nineteen dimensions, from the same rows as
 *  the chart's, all under one key (the statistic block's; set-sessions.ts). Null when they cannot answer. */
export async function rollupFilteredVisitors(sql: Sql, scope: Scope): Promise<number | null> {
  const found = await filteredGroups(sql, scope, VISITORS, 'stats', () => sql`'range'::text`);
  if (!found) return null;
  const [row] = await sql<{ visitors: number }[]>`
    select coalesce(max(g.visitors), 0)::int as visitors from (${found.grouped}) g`;
  return row!.visitors;
}

/** The value rows under the scope's filters on these nineteen dimensions (one family's, or the crossed
 *  ones), each keyed by `keyOf` its day (the rolled rows' `d.day`, the raw part's events' `e.ts`) and
 *  grouped (ownBaseGroups); the visitors per key kept under `name` and the filters. */
async function filteredGroups(
  sql: Sql,
  scope: Scope,
  metric: Metric,
  name: string,
  keyOf: (ts: Fragment) => Fragment,
): Promise<{ grouped: Fragment } | null> {
  const rows = VALUE_ROW_METRICS.has(metric.name) ? filteredRows(sql, scope) : null;
  if (!rows) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const day = keyOf(sql`d.day::timestamp`);
  const rolled = (rolledDays: string[]) => rows.rowsOf({ ...days, rolled: rolledDays }, day);
  return ownBaseGroups(sql, scope, days, `${name}:${rows.label}`, rolled, keyOf(sql`e.ts at time zone 'UTC'`), [
    metric,
  ]);
}

/**
 * The value rows that hold one project's events under its filters on these nineteen dimensions: one
 * family's rows, or the crossed ones when the filters reach into both; under a page or event filter, one
 * family's page or name rows (any family's under that filter alone), or the crossed ones beside filters
 * on both families. `rowsOf` some days, each row keyed
 * by `key` (a fragment over its `d.day`); `label` names them and the filters in a kept value. Null when
 * they cannot take the filters.
 */
export function filteredRows(
  sql: Sql,
  scope: Scope,
): { label: string; rowsOf: (days: Pick<Plan, 'rolled' | 'sel'>, key: Fragment) => Fragment } | null {
  const split = keyedOf(scope.filters);
  if (scope.projectIds.length !== 1 || !split) return null;
  if (scope.filters.length === 0 || split.rest.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const family = split.rest.length === 0 ? KEYED_FAMILY : familyOf(split.rest);
  const project = scope.projectIds[0]!;
  return {
    label: `${family ? family.label : 'cross'}:${printed(scope.filters)}`,
    rowsOf: (days, day) =>
      family
        ? familyRows(sql, project, family, days, split.rest, { day }, split.keyed)
        : crossRows(sql, project, days, split.rest, { day }, split.keyed),
  };
}

const VISITORS: Metric = { name: 'visitors', member: 'visitors', family: 'event' };

/** What a row is keyed by: a dimension's value, or a bucket of the row's day (a fragment over `d.day`). */
type RowKey = { dimension: string } | { day: Fragment };

/** The filters as they name a kept value. */
export const printed = (filters: Filter[]) => JSON.stringify(filters.map((f) => [f.dimension, f.exclude, f.value]));

/** Rows of one family's day rollups under filters on its members; with `keyed` (keyedOf), its per-set page
 *  or name rows under the page or event filters. The sets are aliased `e`, so the dimension and filter
 *  SQL of the events table applies to them. */
export function familyRows(
  sql: Sql,
  project: string,
  family: Family,
  days: Pick<Plan, 'rolled' | 'sel'>,
  filters: Filter[],
  key: RowKey,
  keyed: Keyed | null = null,
): Fragment {
  const k = 'day' in key ? key.day : sql`s.k`;
  const value = 'dimension' in key ? sql`, ${dimensionSql(sql, key.dimension)}::text as k` : sql``;

  return sql`
    select ${k} as k, d.day, d.pageviews, d.events, d.visitors
    from ${sql(keyed ? family[keyed.table] : family.rows)} d join (
      select e.id ${value} from ${sql(family.sets)} e where e.project_id = ${project} and ${filtersSql(sql, filters)}
    ) s on s.id = d.set_id
    where d.project_id = ${project} and d.day = any(${days.rolled}::date[]) and ${selectionSql(sql, days, 'd')} ${keyedSql(sql, 'd', keyed)}`;
}

/** The ids of the family's sets under its filters, over the sets aliased `e` (the events' filter SQL applies). */
export const setIds = (sql: Sql, project: string, sets: string, scope: Pick<Scope, 'filters'>) =>
  sql`select e.id from ${sql(sets)} e where e.project_id = ${project} and ${filtersSql(sql, scope.filters)}`;

/** Whether filters on the nineteen dimensions reach into both families: the crossed rows (0068, 0094) take
 *  them, each family's filters selecting its sets. */
export const crossedOf = (filters: Filter[]): boolean =>
  filters.length > 0 && familyOf(filters) === undefined && filters.every((f) => ROLLUP_DIMENSIONS.has(f.dimension));

/** `<alias>.dim_set_id in (…) and <alias>.acq_set_id in (…)`: a crossed row's pair of sets under the filters,
 *  each family's filters selecting its sets (every set of a family the filters leave alone). */
export function crossPairSql(sql: Sql, project: string, alias: string, filters: Filter[]): Fragment {
  const side = (dimensions: Set<string>, table: string) =>
    setIds(sql, project, table, { filters: filters.filter((f) => dimensions.has(f.dimension)) });
  return sql`${sql(alias)}.dim_set_id in (${side(VISITOR_DIMENSIONS, 'rollup_dim_sets')})
    and ${sql(alias)}.acq_set_id in (${side(ACQUISITION_DIMENSIONS, 'rollup_acq_sets')})`;
}

/** Rows of rollup_day_cross (0068) under filters on both families: each family's filters select its sets;
 *  the value is a dimension's (its family's sets give it) or the bucket of the row's day (`d.day`). With
 *  `keyed` (keyedOf), the per-pair page or name rows (0094) under the page or event filters. */
export function crossRows(
  sql: Sql,
  project: string,
  days: Pick<Plan, 'rolled' | 'sel'>,
  filters: Filter[],
  key: RowKey,
  keyed: Keyed | null = null,
): Fragment {
  const side = (dimensions: Set<string>, table: string) => {
    const own = filters.filter((f) => dimensions.has(f.dimension));
    const k =
      'dimension' in key && dimensions.has(key.dimension)
        ? sql`${dimensionSql(sql, key.dimension)}::text`
        : sql`null::text`;
    return sql`select e.id, ${k} as k from ${sql(table)} e where e.project_id = ${project} and ${filtersSql(sql, own)}`;
  };
  return sql`
    select ${'day' in key ? key.day : sql`coalesce(v.k, a.k)`} as k, d.day, d.pageviews, d.events, d.visitors
    from ${sql(keyed ? `rollup_day_cross_${keyed.table}` : 'rollup_day_cross')} d
    join (${side(VISITOR_DIMENSIONS, 'rollup_dim_sets')}) v on v.id = d.dim_set_id
    join (${side(ACQUISITION_DIMENSIONS, 'rollup_acq_sets')}) a on a.id = d.acq_set_id
    where d.project_id = ${project} and d.day = any(${days.rolled}::date[]) and ${selectionSql(sql, days, 'd')}
      ${keyedSql(sql, 'd', keyed)}`;
}

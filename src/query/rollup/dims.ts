// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// and by an acquisition one (referrer, channel, UTM …) under filters on those, from the dimension day
// rollups (sql/queries/build_rollup_dim_days.sql, build_rollup_acq_days.sql), and by either under filters
// on both families from the crossed rows (build_rollup_cross_days.sql): a 30-day read sums a few
// thousand rows (one per day, class and set of values) instead of grouping every event (value-rows.ts).
// Under a page filter (`page=X`), alone or beside one family's filters, from that family's page rows per
// set (0089), which hold the events of each path.
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
const FAMILIES = [
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

/**
 * The scope's filters as the per-set page rows (0089) can take them: the paths of its `page` filters and
 * the other filters. The page rows hold a path per row, so `page=X` selects rows; `page!=X` would also
 * keep the events without a path, which those rows leave out: null then.
 */
export function pagesOf(filters: Filter[]): { paths: string[]; rest: Filter[] } | null {
  const pages = filters.filter((f) => f.dimension === 'page');
  if (pages.some((f) => f.exclude)) return null;
  return { paths: pages.map((f) => f.value), rest: filters.filter((f) => f.dimension !== 'page') };
}

/** The family whose page rows read a page filter alone: the acquisition sets are the coarser, so a path
 *  has fewer rows a day in them, and an index finds a path's rows (0090). */
export const PAGE_FAMILY = FAMILIES[1]!;

export async function rollupDimensionGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const family = FAMILIES.find((f) => f.dimensions.has(dimension));
  const pages = pagesOf(scope.filters);
  if (scope.projectIds.length !== 1 || !family || !pages || metrics.some((m) => !VALUE_ROW_METRICS.has(m.name)))
    return null;
  // Under a page filter, the family's page rows; with filters on the other family too, nothing.
  const crossed = pages.rest.some((f) => !family.dimensions.has(f.dimension));
  if (crossed && (pages.paths.length > 0 || pages.rest.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension)))) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  // The range's raw part (segments.ts) groups its events by the dimension's SQL, as the sets give it.
  const rolled = (rolledDays: string[]) =>
    crossed
      ? crossRows(sql, project, { ...days, rolled: rolledDays }, scope.filters, { dimension })
      : familyRows(sql, project, family, { ...days, rolled: rolledDays }, pages.rest, { dimension }, pages.paths);
  const question = `${crossed ? 'cross' : family.label}:${dimension}:${printed(scope.filters)}`;
  return ownBaseGroups(sql, scope, days, question, rolled, sql`${dimensionSql(sql, dimension)}::text`, metrics);
}

/**
 * A timeseries of visitors, pageviews or events by day, week or month under filters on these nineteen
 * dimensions (and on the page): the rows a breakdown under the same filters reads (one family's, or the crossed ones), keyed
 * by the bucket of their day instead of a value, and the range's raw part by its events' bucket; so the
 * distinct visitors per bucket are counted once a range and kept as a breakdown's are (value-rows.ts).
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
  const pages = pagesOf(scope.filters);
  if (scope.projectIds.length !== 1 || !VALUE_ROW_METRICS.has(metric.name) || !pages) return null;
  if (scope.filters.length === 0 || pages.rest.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  // Under a page filter, one family's page rows (any family's under the page filter alone).
  const family = pages.rest.length === 0 ? PAGE_FAMILY : familyOf(pages.rest);
  if (!family && pages.paths.length > 0) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const day = keyOf(sql`d.day::timestamp`);
  const rolled = (rolledDays: string[]) =>
    family
      ? familyRows(sql, project, family, { ...days, rolled: rolledDays }, pages.rest, { day }, pages.paths)
      : crossRows(sql, project, { ...days, rolled: rolledDays }, scope.filters, { day });
  const question = `${name}:${family ? family.label : 'cross'}:${printed(scope.filters)}`;
  return ownBaseGroups(sql, scope, days, question, rolled, keyOf(sql`e.ts at time zone 'UTC'`), [metric]);
}

const VISITORS: Metric = { name: 'visitors', member: 'visitors', family: 'event' };

/** What a row is keyed by: a dimension's value, or a bucket of the row's day (a fragment over `d.day`). */
type RowKey = { dimension: string } | { day: Fragment };

/** `and <alias>.path = X` for each of `paths` (pagesOf): one path, or none when two page filters name
 *  different paths, as on events; one equality each, which an index on the path can take. */
export const pathsSql = (sql: Sql, alias: string, paths: string[]): Fragment =>
  paths.map((p) => sql`and ${sql(alias)}.path = ${p}`).reduce((a, b) => sql`${a} ${b}`, sql``);

/** The filters as they name a kept value. */
export const printed = (filters: Filter[]) => JSON.stringify(filters.map((f) => [f.dimension, f.exclude, f.value]));

/** Rows of one family's day rollups under filters on its members; with `paths` (pagesOf), its per-set page
 *  rows of those paths. The sets are aliased `e`, so the dimension and filter SQL of the events table
 *  applies to them. */
export function familyRows(
  sql: Sql,
  project: string,
  family: Family,
  days: Pick<Plan, 'rolled' | 'sel'>,
  filters: Filter[],
  key: RowKey,
  paths: string[] = [],
): Fragment {
  const k = 'day' in key ? key.day : sql`s.k`;
  const value = 'dimension' in key ? sql`, ${dimensionSql(sql, key.dimension)}::text as k` : sql``;
  const path = pathsSql(sql, 'd', paths);
  return sql`
    select ${k} as k, d.day, d.pageviews, d.events, d.visitors
    from ${sql(paths.length > 0 ? family.pages : family.rows)} d join (
      select e.id ${value} from ${sql(family.sets)} e where e.project_id = ${project} and ${filtersSql(sql, filters)}
    ) s on s.id = d.set_id
    where d.project_id = ${project} and d.day = any(${days.rolled}::date[]) and ${selectionSql(sql, days, 'd')} ${path}`;
}

/** Rows of rollup_day_cross (0068) under filters on both families: each family's filters select its sets;
 *  the value is a dimension's (its family's sets give it) or the bucket of the row's day (`d.day`). */
function crossRows(
  sql: Sql,
  project: string,
  days: Pick<Plan, 'rolled' | 'sel'>,
  filters: Filter[],
  key: RowKey,
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
    from rollup_day_cross d
    join (${side(VISITOR_DIMENSIONS, 'rollup_dim_sets')}) v on v.id = d.dim_set_id
    join (${side(ACQUISITION_DIMENSIONS, 'rollup_acq_sets')}) a on a.id = d.acq_set_id
    where d.project_id = ${project} and d.day = any(${days.rolled}::date[]) and ${selectionSql(sql, days, 'd')}`;
}

// Breakdowns by a visitor-level dimension (country, browser, device …) under filters on such dimensions,
// and by an acquisition one (referrer, channel, UTM …) under filters on those, from the dimension day
// rollups (sql/queries/build_rollup_dim_days.sql, build_rollup_acq_days.sql), and by either under filters
// on both families from the crossed rows (build_rollup_cross_days.sql): a 30-day read sums a few
// thousand rows (one per day, class and set of values) instead of grouping every event (value-rows.ts).
// The part of the range they do not hold (segments.ts) is grouped from events. Null when they cannot
// answer: another dimension or filter, a metric they do not carry, or a range without a built day.
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
  { dimensions: VISITOR_DIMENSIONS, sets: 'rollup_dim_sets', rows: 'rollup_day_dims', label: 'dim_visitors' },
  { dimensions: ACQUISITION_DIMENSIONS, sets: 'rollup_acq_sets', rows: 'rollup_day_acq', label: 'acq_visitors' },
];

export const ROLLUP_DIMENSIONS = new Set([...VISITOR_DIMENSIONS, ...ACQUISITION_DIMENSIONS]);

export async function rollupDimensionGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const family = FAMILIES.find((f) => f.dimensions.has(dimension));
  if (scope.projectIds.length !== 1 || !family || metrics.some((m) => !VALUE_ROW_METRICS.has(m.name))) return null;
  const crossed = scope.filters.some((f) => !family.dimensions.has(f.dimension));
  if (crossed && scope.filters.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  // The sets are aliased `e`, so the dimension and filter SQL of the events table applies to them; the
  // range's raw part (segments.ts) groups its events by the same SQL.
  const rolled = (rolledDays: string[]) =>
    crossed
      ? crossRows(sql, project, { ...days, rolled: rolledDays }, scope.filters, { dimension })
      : sql`
    select s.k, d.day, d.pageviews, d.events, d.visitors
    from ${sql(family.rows)} d join (
      select e.id, ${dimensionSql(sql, dimension)}::text as k from ${sql(family.sets)} e
      where e.project_id = ${project} and ${filtersSql(sql, scope.filters)}
    ) s on s.id = d.set_id
    where d.project_id = ${project} and d.day = any(${rolledDays}::date[]) and ${selectionSql(sql, days, 'd')}`;
  const question = `${crossed ? 'cross' : family.label}:${dimension}:${JSON.stringify(scope.filters.map((f) => [f.dimension, f.exclude, f.value]))}`;
  return ownBaseGroups(sql, scope, days, question, rolled, sql`${dimensionSql(sql, dimension)}::text`, metrics);
}

/**
 * A timeseries of visitors, pageviews or events by day, week or month under filters on these nineteen
 * dimensions: the rows a breakdown under the same filters reads (one family's, or the crossed ones), keyed
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
  if (scope.projectIds.length !== 1 || interval === 'hour' || !VALUE_ROW_METRICS.has(metric.name)) return null;
  if (scope.filters.length === 0 || scope.filters.some((f) => !ROLLUP_DIMENSIONS.has(f.dimension))) return null;
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const family = FAMILIES.find((x) => scope.filters.every((f) => x.dimensions.has(f.dimension)));
  const bucket = (ts: Fragment) => sql`date_trunc(${interval}, ${ts})::text`;
  const day = bucket(sql`d.day::timestamp`);
  const rolled = (rolledDays: string[]) =>
    family
      ? sql`
    select ${day} as k, d.day, d.pageviews, d.events, d.visitors
    from ${sql(family.rows)} d join (
      select e.id from ${sql(family.sets)} e where e.project_id = ${project} and ${filtersSql(sql, scope.filters)}
    ) s on s.id = d.set_id
    where d.project_id = ${project} and d.day = any(${rolledDays}::date[]) and ${selectionSql(sql, days, 'd')}`
      : crossRows(sql, project, { ...days, rolled: rolledDays }, scope.filters, { day });
  const question = `timeseries:${interval}:${family ? family.label : 'cross'}:${JSON.stringify(scope.filters.map((f) => [f.dimension, f.exclude, f.value]))}`;
  const at = bucket(sql`e.ts at time zone 'UTC'`);
  const { grouped } = await ownBaseGroups(sql, scope, days, question, rolled, at, [metric]);
  return { agg: sql`select g.key::timestamp as bucket, g.values[1] as value from (${grouped}) g` };
}

/** Rows of rollup_day_cross (0068) under filters on both families: each family's filters select its sets;
 *  the value is a dimension's (its family's sets give it) or the bucket of the row's day (`d.day`). */
function crossRows(
  sql: Sql,
  project: string,
  days: Pick<Plan, 'rolled' | 'sel'>,
  filters: Filter[],
  key: { dimension: string } | { day: Fragment },
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

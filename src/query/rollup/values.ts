// Breakdowns by an acquisition dimension events carry (referrer, referrer_domain, channel, utm_*) without
// filters, from the value day rollups (0031, kept by the writers): per day, value and class, instead of
// grouping every event of the range (value-rows.ts). Null when they cannot answer: another dimension, any
// filter, a metric they do not carry, or a range that is not whole days.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { rollupsReady } from './ready.ts';
import { rollupDays } from './eligible.ts';
import { selectionSql, valueRowGroups, VALUE_ROW_METRICS } from './value-rows.ts';

export const VALUE_DIMENSIONS = new Set([
  'referrer',
  'referrer_domain',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
]);

export async function rollupValueGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || !VALUE_DIMENSIONS.has(dimension)) return null;
  if (metrics.some((m) => !VALUE_ROW_METRICS.has(m.name))) return null;
  const days = rollupDays(scope);
  if (!days) return null;
  const project = scope.projectIds[0]!;
  if (!(await rollupsReady(sql, [project], days))) return null;
  // Every event carries each dimension (null included), so the dimension's rows are also the share's base.
  const rows = sql`
    select e.value as k, e.pageviews, e.events, e.visitors from rollup_day_values e
    where e.project_id = ${project} and e.dim = ${dimension} and e.day >= ${days.from}::date and e.day < ${days.to}::date
      and ${selectionSql(sql, days, 'e')}`;
  return valueRowGroups(sql, project, days, `value_visitors:${dimension}`, rows, rows, metrics);
}

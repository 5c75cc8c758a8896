// Breakdowns by `prop:<key>`, alone or under filters on the event name (signups by plan), from the prop
// day rollups (sql/queries/build_rollup_prop_days.sql): per day, name, class, key and value, instead of
// every event's props (value-rows.ts). Null when they cannot answer: another dimension or filter, a
// metric they do not carry, an error's `stack` or `breadcrumbs` (not rolled up), or a range that is not
// whole closed days.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { rollupsBuilt } from './build.ts';
import { closedDays } from './eligible.ts';
import { selectionSql, valueRowGroups, VALUE_ROW_METRICS } from './value-rows.ts';

const PROP = /^prop:(.+)$/;
const NOT_ROLLED_UP = new Set(['stack', 'breadcrumbs']);

export async function rollupPropGroups(
  sql: Sql,
  scope: Scope,
  dimension: string,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  const key = PROP.exec(dimension)?.[1];
  if (scope.projectIds.length !== 1 || key === undefined || NOT_ROLLED_UP.has(key)) return null;
  if (metrics.some((m) => !VALUE_ROW_METRICS.has(m.name)) || scope.filters.some((f) => f.dimension !== 'event'))
    return null;
  const days = closedDays(scope);
  if (!days) return null;
  const project = scope.projectIds[0]!;
  if (!(await rollupsBuilt(sql, [project], days.from, days.to))) return null;
  // Rows are aliased `e` and carry `name`, so the events' `event` filter SQL applies to them.
  const of = (which: Fragment) => sql`
    select e.value as k, e.pageviews, e.events, e.visitors from rollup_day_props e
    where e.project_id = ${project} and ${which} and e.day >= ${days.from}::date and e.day < ${days.to}::date
      and ${selectionSql(sql, days, 'e')} and ${filtersSql(sql, scope.filters)}`;
  const question = `prop_visitors:${key}:${JSON.stringify(scope.filters.map((f) => [f.exclude, f.value]))}`;
  return valueRowGroups(sql, project, days, question, of(sql`e.key = ${key}`), of(sql`e.key is null`), metrics);
}

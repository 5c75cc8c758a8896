// Breakdowns by `prop:<key>`, alone or under filters on the event name (signups by plan), from the prop
// day rollups (sql/queries/build_rollup_prop_days.sql): per day, name, class, key and value, instead of
// every event's props (value-rows.ts); and by the event name from the same rollups' per-name rows. Null when they cannot answer: another dimension or filter, a
// metric they do not carry, an error's `stack` or `breadcrumbs` (not rolled up), or a range without a
// built day; the part of the range they do not hold (segments.ts) is grouped from events.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import type { Metric } from '../metrics.ts';
import { rollupFilteredEventGroups } from './set-values.ts';
import { addedEventsSql, hasRawPart, planRange, type Plan } from './segments.ts';
import { ownBaseGroups, rawValueRowsSql, selectionSql, valueRowGroups, VALUE_ROW_METRICS } from './value-rows.ts';

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
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  // Rows are aliased `e` and carry `name`, so the events' `event` filter SQL applies to them; the
  // range's raw part (segments.ts) is grouped from its events as build_rollup_prop_days.sql does.
  const of = (which: Fragment, rolled: string[]) => sql`
    select e.value as k, e.day, e.pageviews, e.events, e.visitors from rollup_day_props e
    where e.project_id = ${project} and ${which} and e.day = any(${rolled}::date[])
      and ${selectionSql(sql, days, 'e')} and ${filtersSql(sql, scope.filters)}`;
  const raw = hasRawPart(days);
  const events = sql`${addedEventsSql(sql, scope, days)} e`;
  const where = filtersSql(sql, scope.filters);
  const added = raw && {
    rows: rawValueRowsSql(
      sql,
      sql`p.value`,
      sql`${events}, jsonb_each_text(e.props) as p`,
      sql`${where} and p.key = ${key} and p.value is not null`,
    ),
    base: rawValueRowsSql(sql, sql`null::text`, events, where),
  };
  const question = `prop_visitors:${key}:${JSON.stringify(scope.filters.map((f) => [f.exclude, f.value]))}`;
  const rolled = (rolled: string[]) => ({
    rows: of(sql`e.key = ${key}`, rolled),
    base: of(sql`e.key is null`, rolled),
  });
  return valueRowGroups(sql, project, days, question, rolled, added || null, metrics);
}

/** Breakdowns by the event name (`event`), alone or under filters on it, from the prop rollups' rows of
 *  all the events of a name (key null); under filters on one family of dimensions besides, from the
 *  per-set name rows (set-values.ts). The part of the range they do not hold is grouped from events. */
export async function rollupEventGroups(
  sql: Sql,
  scope: Scope,
  metrics: Metric[],
): Promise<{ grouped: Fragment } | null> {
  if (scope.projectIds.length !== 1 || metrics.some((m) => !VALUE_ROW_METRICS.has(m.name))) return null;
  if (scope.filters.some((f) => f.dimension !== 'event')) return rollupFilteredEventGroups(sql, scope, metrics);
  const days = await planRange(sql, scope, { patch: true });
  if (!days) return null;
  const project = scope.projectIds[0]!;
  const rolled = (rolled: string[]) =>
    nameRowsSql(sql, project, days, rolled, sql`e.name`, filtersSql(sql, scope.filters));
  const question = `event_visitors:${JSON.stringify(scope.filters.map((f) => [f.exclude, f.value]))}`;
  return ownBaseGroups(sql, scope, days, question, rolled, sql`e.name`, metrics);
}

/** The prop rollups' rows of all the events of a name (key null) over the `rolled` days, keyed by `k`,
 *  under `where` (the rows are aliased `e` and carry `name`, so the events' event filter SQL applies). */
export const nameRowsSql = (
  sql: Sql,
  project: string,
  days: Plan,
  rolled: string[],
  k: Fragment,
  where: Fragment,
): Fragment => sql`
  select ${k} as k, e.day, e.pageviews, e.events, e.visitors from rollup_day_props e
  where e.project_id = ${project} and e.key is null and e.day = any(${rolled}::date[])
    and ${selectionSql(sql, days, 'e')} and ${where}`;

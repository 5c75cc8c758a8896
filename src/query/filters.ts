// Turns traffic, environment and dimension filters into one `where` fragment over events `e`.
// Values are always bound parameters; an excluded value also keeps rows where the dimension is null.
import type { Sql } from 'postgres';
import { dimensionSql, keyedContainmentSql, traitMatchSql, type Fragment } from './dimensions.ts';
import type { Environment, Filter, Range, Traffic } from './params.ts';

export type Scope = {
  projectIds: string[];
  range: Range;
  traffic: Traffic;
  environment: Environment;
  filters: Filter[];
  /** Under `trait:` filters, the ids of sessions that hold every event those filters select (readScope),
   *  which the plan then finds through events_project_session instead of reading the whole range. */
  sessions?: string[];
};

export function whereSql(sql: Sql, scope: Scope): Fragment {
  return sql`${baseWhereSql(sql, scope)} and ${filtersSql(sql, scope.filters, traitsListed(scope))} ${indexedSql(sql, scope)}`;
}

/** Whether the scope's session list selects exactly the events of its trait filters: the list holds one
 *  project's sessions of the visitors with the values (readScope), and a session is one visitor's. Over
 *  several projects an id may name sessions of two, and the filters test each event's visitor as well. */
export const traitsListed = (scope: Scope) => scope.sessions !== undefined && scope.projectIds.length === 1;

/** What lets the plan find a prop or group filter's events through their index (0095), and a trait
 *  filter's through their sessions' (sessionListSql), rather than read every event of the range: `and …`
 *  for each such filter (an excluded value cannot), else nothing. */
function indexedSql(sql: Sql, scope: Scope): Fragment {
  return scope.filters
    .flatMap((f) => (f.exclude ? [] : [keyedContainmentSql(sql, scope.projectIds, f.dimension, f.value)]))
    .reduce<Fragment>((acc, part) => (part ? sql`${acc} and (${part})` : acc), sessionListSql(sql, scope));
}

/** `and` the event is in one of the scope's listed sessions (trait filters), or nothing. An event is in
 *  the list when its whole session is, so reads that sequence a session's events may take it too. */
export function sessionListSql(sql: Sql, scope: Scope): Fragment {
  return scope.sessions ? sql` and e.session_id = any(${scope.sessions}::text[])` : sql``;
}

/** Projects, range, traffic and environment, without the dimension filters. */
export function baseWhereSql(sql: Sql, scope: Scope): Fragment {
  const parts = [
    scope.projectIds.length === 1
      ? sql`e.project_id = ${scope.projectIds[0]!}`
      : sql`e.project_id = any(${scope.projectIds})`,
    sql`e.ts >= ${scope.range.from} and e.ts < ${scope.range.to}`,
    trafficSql(sql, scope.traffic),
    environmentSql(sql, scope.environment),
  ];
  return parts.reduce((acc, part) => sql`${acc} and ${part}`);
}

/** What counts a visitor once: the id within one project, project and id across several. (Counting
 *  distinct `(project_id, visitor_id)` records sorts row values, several times slower than one text.) */
export const visitorKeySql = (sql: Sql, scope: Pick<Scope, 'projectIds'>, alias = 'e'): Fragment =>
  scope.projectIds.length === 1
    ? sql`${sql(alias)}.visitor_id`
    : sql`${sql(alias)}.project_id || ' ' || ${sql(alias)}.visitor_id`;

/** The dimension filters alone (`true` when none), over any relation aliased `e` with the events columns.
 *  `traitsListed`: the relation holds only events of the scope's listed sessions (traitsListed), which
 *  answer for the included traits. */
export const filtersSql = (sql: Sql, filters: Filter[], traitsListed = false): Fragment =>
  filters
    .filter((f) => !(traitsListed && !f.exclude && traitMatchSql(sql, f.dimension, f.value)))
    .map((f) => filterSql(sql, f))
    .reduce((acc, part) => sql`${acc} and ${part}`, sql`true`);

function trafficSql(sql: Sql, traffic: Traffic): Fragment {
  switch (traffic) {
    case 'human':
      return sql`e.bot_score < 50 and not e.is_internal and not e.is_localhost`;
    case 'bots':
      return sql`e.bot_score >= 50`;
    case 'internal':
      return sql`e.is_internal`;
    case 'all':
      return sql`true`;
  }
}

const environmentSql = (sql: Sql, environment: Environment): Fragment =>
  environment === 'all' ? sql`true` : sql`e.environment = ${environment}`;

function filterSql(sql: Sql, f: Filter): Fragment {
  const trait = traitMatchSql(sql, f.dimension, f.value);
  if (trait) return f.exclude ? sql`not ${trait}` : trait;
  const dim = dimensionSql(sql, f.dimension);
  return f.exclude ? sql`${dim} is distinct from ${f.value}` : sql`${dim} = ${f.value}`;
}

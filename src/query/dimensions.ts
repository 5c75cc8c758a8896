// The dimension registry: each public dimension name maps to a SQL expression over the events table
// aliased `e`. Column names come only from this fixed table; a `prop:`/`trait:`/`group:` key is a bound parameter.
import type { PendingQuery, Row, Sql } from 'postgres';

export type Fragment = PendingQuery<Row[]>;

/** Dimensions stored as a column of `events`, by public name. */
const eventColumns = {
  page: 'path',
  route: 'route',
  title: 'title',
  referrer: 'referrer',
  referrer_domain: 'referrer_domain',
  channel: 'channel',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
  country: 'country',
  region: 'region',
  city: 'city',
  browser: 'browser',
  browser_version: 'browser_version',
  os: 'os',
  os_version: 'os_version',
  device: 'device',
  screen: 'screen',
  language: 'language',
  event: 'name',
  release: 'release',
} as const;

/** Dimensions of the session an event belongs to. */
const sessionColumns = { entry_page: 'entry_page', exit_page: 'exit_page' } as const;

export const dimensionNames = [...Object.keys(eventColumns), ...Object.keys(sessionColumns)] as string[];

/** `prop:<key>` (the event's props), `trait:<key>` (the visitor's current traits), `group:<type>` (the event's groups). */
const KEYED = /^(prop|trait|group):([A-Za-z0-9_.$-]{1,64})$/;

export const isDimension = (name: string) =>
  Object.hasOwn(eventColumns, name) || Object.hasOwn(sessionColumns, name) || KEYED.test(name);

/** A keyed dimension's kind and key, or null for any other name. */
function keyedOf(name: string): { kind: 'prop' | 'trait' | 'group'; key: string } | null {
  const m = KEYED.exec(name);
  return m ? { kind: m[1] as 'prop' | 'trait' | 'group', key: m[2]! } : null;
}

/** The SQL expression of a dimension over `e`; callers check names with isDimension first. */
export function dimensionSql(sql: Sql, name: string): Fragment {
  if (Object.hasOwn(eventColumns, name)) return sql`e.${sql(eventColumns[name as keyof typeof eventColumns])}`;
  if (Object.hasOwn(sessionColumns, name)) {
    const column = sql(sessionColumns[name as keyof typeof sessionColumns]);
    return sql`(select s.${column} from sessions s where s.project_id = e.project_id and s.id = e.session_id)`;
  }
  const keyed = keyedOf(name);
  if (keyed) {
    const { kind, key } = keyed;
    // Traits live on the visitor (merged over time), so a trait filter reads the visitor's current traits.
    if (kind === 'trait')
      return sql`(select v.traits ->> ${key} from visitors v where v.project_id = e.project_id and v.id = e.visitor_id)`;
    return kind === 'prop' ? sql`(e.props ->> ${key})` : sql`(e.groups ->> ${key})`;
  }
  throw new Error(`unregistered dimension ${name}`);
}

/**
 * The events whose visitor's current traits give `trait:<key>` the value, as a condition over `e`: the
 * visitors that have it, joined once (a hashed semi-join). Comparing dimensionSql's value instead looks the
 * visitor up for every event of the range (3.7 times as long at 1M events over 30 days). The same events:
 * a visitor is one row of (project, id). Null for every other dimension.
 */
export function traitMatchSql(sql: Sql, name: string, value: string): Fragment | null {
  const keyed = keyedOf(name);
  if (keyed?.kind !== 'trait') return null;
  return sql`(e.project_id, e.visitor_id) in (
    select v.project_id, v.id from visitors v where v.traits ->> ${keyed.key} = ${value})`;
}

/**
 * For `trait:<key> = value`, the condition over visitors `v` of `projectIds` that have the value: the
 * containment the partial GIN index of 0096 answers, and the exact `->>` test. Null for other dimensions.
 */
export function traitVisitorsSql(sql: Sql, projectIds: string[], name: string, value: string): Fragment | null {
  const keyed = keyedOf(name);
  if (keyed?.kind !== 'trait' || projectIds.length === 0) return null;
  const contains = containmentSql(sql, projectIds, keyed.key, value, sql`v.project_id`, sql`v.traits`);
  return sql`${contains} and v.traits ->> ${keyed.key} = ${value}`;
}

/** A JSON number as `->>` prints one, and as jsonb would parse its text. */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * For `prop:<key> = value` and `group:<type> = value`, a condition the matching events of `projectIds` also
 * meet that the GIN indexes of 0095 answer: the indexed `{project: props}` (or groups) holds the key with
 * the value as a string, or, when the value reads as one, as a number or a boolean, the JSON values whose
 * `->>` text it can be. A superset (1.50 contains as 1.5): the exact `->>` test stays beside it. Null for
 * every other dimension.
 */
export function keyedContainmentSql(sql: Sql, projectIds: string[], name: string, value: string): Fragment | null {
  const keyed = keyedOf(name);
  if (!keyed || keyed.kind === 'trait' || projectIds.length === 0) return null;
  const column = keyed.kind === 'prop' ? sql`e.props` : sql`e.groups`;
  return containmentSql(sql, projectIds, keyed.key, value, sql`e.project_id`, column);
}

/** `{project: column}` holds `key` with the value, spelled as the partial GIN indexes of 0095 and 0096 are. */
function containmentSql(
  sql: Sql,
  projectIds: string[],
  key: string,
  value: string,
  project: Fragment,
  column: Fragment,
): Fragment {
  const members = [JSON.stringify({ [key]: value })];
  if (JSON_NUMBER.test(value) || value === 'true' || value === 'false')
    members.push(`{${JSON.stringify(key)}:${value}}`);
  const contains = projectIds
    .flatMap((p) => members.map((m) => `{${JSON.stringify(p)}:${m}}`))
    // The index's expression, spelled as it is; the parameter as text, since one typed jsonb is encoded again.
    .map((c) => sql`jsonb_set('{}'::jsonb, array[${project}], ${column}) @> ${c}::text::jsonb`)
    .reduce((acc, part) => sql`${acc} or ${part}`);
  // The indexes are partial (objects with members): this conjunct lets the planner take them.
  return sql`${column} <> '{}'::jsonb and (${contains})`;
}

// The dimension registry: each public dimension name maps to a SQL expression over the events table
// aliased `e`. Column names come only from this fixed table; a `prop:<key>` key is a bound parameter.
import type { PendingQuery, Row, Sql } from 'postgres';

export type Fragment = PendingQuery<Row[]>;

/** Dimensions stored as a column of `events`, by public name. */
const eventColumns = {
  page: 'path', route: 'route', title: 'title', referrer: 'referrer', referrer_domain: 'referrer_domain', channel: 'channel',
  utm_source: 'utm_source', utm_medium: 'utm_medium', utm_campaign: 'utm_campaign', utm_term: 'utm_term', utm_content: 'utm_content',
  country: 'country', region: 'region', city: 'city', browser: 'browser', browser_version: 'browser_version', os: 'os',
  os_version: 'os_version', device: 'device', screen: 'screen', language: 'language', event: 'name', release: 'release',
} as const;

/** Dimensions of the session an event belongs to. */
const sessionColumns = { entry_page: 'entry_page', exit_page: 'exit_page' } as const;

export const dimensionNames = [...Object.keys(eventColumns), ...Object.keys(sessionColumns)] as string[];

const PROP = /^prop:[A-Za-z0-9_.$-]{1,64}$/;

export const isDimension = (name: string) => Object.hasOwn(eventColumns, name) || Object.hasOwn(sessionColumns, name) || PROP.test(name);

/** The SQL expression of a dimension over `e`; callers check names with isDimension first. */
export function dimensionSql(sql: Sql, name: string): Fragment {
  if (Object.hasOwn(eventColumns, name)) return sql`e.${sql(eventColumns[name as keyof typeof eventColumns])}`;
  if (Object.hasOwn(sessionColumns, name)) {
    const column = sql(sessionColumns[name as keyof typeof sessionColumns]);
    return sql`(select s.${column} from sessions s where s.project_id = e.project_id and s.id = e.session_id)`;
  }
  if (PROP.test(name)) return sql`(e.props ->> ${name.slice('prop:'.length)})`;
  throw new Error(`unregistered dimension ${name}`);
}

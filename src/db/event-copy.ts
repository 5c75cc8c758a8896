// The two ways a flush stores its events: COPY FROM STDIN on PostgreSQL after the keys are claimed (about
// twice the rows a second of a JSON parameter for the database), and one statement that claims the keys
// and inserts from one text parameter (one round trip: small flushes, and embedded PGlite, whose socket
// has no COPY), its rows in a separated text form or, when a value holds a separator, as JSON. All store
// the same columns.
import type { Sql } from 'postgres';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { copyValue } from './copy-text.ts';
import { query } from './queries.ts';
import { separatedText, textOrJson } from './separated-text.ts';

const COLUMNS = [
  'project_id',
  'ts',
  'id',
  'name',
  'visitor_id',
  'session_id',
  'path',
  'route',
  'title',
  'host',
  'referrer',
  'referrer_domain',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'screen',
  'viewport',
  'language',
  'connection',
  'props',
  'groups',
  'user_id',
  'release',
  'environment',
  'is_internal',
  'is_localhost',
  'bot_score',
  'issue_id',
] as const;

// A constant of this module: nothing from outside is spliced into the statement.
export const COPY_STATEMENT = `copy events (${COLUMNS.join(', ')}) from stdin`;

export async function copyEvents(tx: Sql, events: readonly EnrichedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const writable = await tx.unsafe(COPY_STATEMENT).writable();
  await new Promise<void>((resolve, reject) => {
    writable.once('error', reject);
    writable.once('finish', resolve);
    writable.end(copyData(events));
  });
}

/** Claims the keys and stores the new events in one statement; answers the ids that were duplicates. The
 *  rows go as separated text, or as JSON when a value holds one of the separators (see the statement). */
export async function insertNewEvents(
  tx: Sql,
  projectId: string,
  events: readonly EnrichedEvent[],
): Promise<Set<string>> {
  const rows = textOrJson(separatedRows(events), () => JSON.stringify(events.map(storedColumns)));
  const known = await query<{ event_id: string }>(tx, 'insert_new_events', [projectId, ...rows]);
  return new Set(known.map((r) => r.event_id));
}

/** The rows in COPY's text format as UTF-8, one line each, in COLUMNS order. Each line is encoded into
 *  one buffer as it is made: one long string built by appending cost as much again to flatten and encode
 *  as to build (see `npm run bench:ingest:stages`). */
export function copyData(events: readonly EnrichedEvent[]): Buffer {
  let buffer = Buffer.allocUnsafe(events.length * 512);
  let used = 0;
  for (const e of events) {
    const line = eventLine(e);
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (buffer.length - used < line.length * 3) {
      const bigger = Buffer.allocUnsafe(Math.max(buffer.length * 2, used + line.length * 3));
      buffer.copy(bigger, 0, 0, used);
      buffer = bigger;
    }
    used += buffer.write(line, used);
  }
  return buffer.subarray(0, used);
}

/** One event's line. The members are read by name (several times faster than by a key from COLUMNS; the
 *  event-store test checks that both write paths store the same values) into one array that join() makes
 *  one flat string of: a template of the 39 values made a tree of about 80 cons strings on the way, 3.0 kB
 *  of garbage an event against 1.3 (each young-generation collection comes that much later). */
function eventLine(e: EnrichedEvent): string {
  return [
    text(e.project_id),
    e.ts,
    text(e.id),
    text(e.name),
    text(e.visitor_id),
    text(e.session_id),
    text(e.path),
    text(e.route),
    text(e.title),
    text(e.host),
    text(e.referrer),
    text(e.referrer_domain),
    text(e.channel),
    text(e.utm_source),
    text(e.utm_medium),
    text(e.utm_campaign),
    text(e.utm_term),
    text(e.utm_content),
    text(e.country),
    text(e.region),
    text(e.city),
    text(e.browser),
    text(e.browser_version),
    text(e.os),
    text(e.os_version),
    text(e.device),
    text(e.screen),
    text(e.viewport),
    text(e.language),
    text(e.connection),
    copyValue(e.props),
    copyValue(e.groups),
    text(e.user_id),
    text(e.release),
    e.environment,
    e.is_internal ? 't' : 'f',
    e.is_localhost ? 't' : 'f',
    e.bot_score,
    `${text(e.issue_id)}\n`,
  ].join('\t');
}

/** A nullable text column. */
const text = (s: string | null): string => (s === null ? '\\N' : copyValue(s));

/** insert_new_events.sql's text form (separated-text.ts): the 38 columns after project_id, in COLUMNS
 *  order; null when a value holds a separator (the caller then sends JSON). */
export const separatedRows = (events: readonly EnrichedEvent[]): string | null =>
  separatedText(
    events,
    38,
    (e, field) =>
      `${e.ts}\x1f${e.id}\x1f${e.name}\x1f${e.visitor_id}\x1f${e.session_id}\x1f${field(e.path)}\x1f${field(e.route)}\x1f` +
      `${field(e.title)}\x1f${field(e.host)}\x1f${field(e.referrer)}\x1f${field(e.referrer_domain)}\x1f${field(e.channel)}\x1f` +
      `${field(e.utm_source)}\x1f${field(e.utm_medium)}\x1f${field(e.utm_campaign)}\x1f${field(e.utm_term)}\x1f${field(e.utm_content)}\x1f` +
      `${field(e.country)}\x1f${field(e.region)}\x1f${field(e.city)}\x1f${field(e.browser)}\x1f${field(e.browser_version)}\x1f` +
      `${field(e.os)}\x1f${field(e.os_version)}\x1f${field(e.device)}\x1f${field(e.screen)}\x1f${field(e.viewport)}\x1f` +
      `${field(e.language)}\x1f${field(e.connection)}\x1f${JSON.stringify(e.props)}\x1f${JSON.stringify(e.groups)}\x1f` +
      `${field(e.user_id)}\x1f${field(e.release)}\x1f${e.environment}\x1f${e.is_internal ? 't' : 'f'}\x1f` +
      `${e.is_localhost ? 't' : 'f'}\x1f${e.bot_score}\x1f${field(e.issue_id)}`,
  );

type StoredColumn = Exclude<(typeof COLUMNS)[number], 'project_id'>; // project_id is a parameter

/** A row of insert_new_events.sql's JSON. An object literal: one built key by key from COLUMNS cost twice
 *  as much to make and serialize (7.7 against 3.2 µs an event); the return type makes it name every
 *  column and no other. */
function storedColumns(e: EnrichedEvent): Record<StoredColumn, unknown> {
  return {
    ts: e.ts,
    id: e.id,
    name: e.name,
    visitor_id: e.visitor_id,
    session_id: e.session_id,
    path: e.path,
    route: e.route,
    title: e.title,
    host: e.host,
    referrer: e.referrer,
    referrer_domain: e.referrer_domain,
    channel: e.channel,
    utm_source: e.utm_source,
    utm_medium: e.utm_medium,
    utm_campaign: e.utm_campaign,
    utm_term: e.utm_term,
    utm_content: e.utm_content,
    country: e.country,
    region: e.region,
    city: e.city,
    browser: e.browser,
    browser_version: e.browser_version,
    os: e.os,
    os_version: e.os_version,
    device: e.device,
    screen: e.screen,
    viewport: e.viewport,
    language: e.language,
    connection: e.connection,
    props: e.props,
    groups: e.groups,
    user_id: e.user_id,
    release: e.release,
    environment: e.environment,
    is_internal: e.is_internal,
    is_localhost: e.is_localhost,
    bot_score: e.bot_score,
    issue_id: e.issue_id,
  };
}

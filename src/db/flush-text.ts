// The one form a flush's rows travel in: COPY's text format (copy-text.ts: a line a row, fields split by
// tabs, \N for null, backslash escapes for backslash, tab and line breaks), sent as one text parameter that
// the statement splits (sql/queries/insert_events.sql, insert_speed_samples.sql, insert_logs.sql, and the
// checkpoint's upsert_sessions.sql and upsert_visitors.sql). Splitting
// text is several times cheaper for the database than reading the same rows as JSON, and escaping makes any
// value fit: no row needs a second form. Lines are joined by a line break, with none after the last.
import type { SessionDelta, VisitorDelta } from '../../actors/flush-rows.ts';
import type { PendingLog } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { copyValue } from './copy-text.ts';

/** insert_events.sql's columns, in the order of an event's line: what COPY FROM STDIN reads them into. */
export const EVENT_COLUMNS = [
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

/** insert_speed_samples.sql's columns, in the order of a sample's line. */
export const SPEED_COLUMNS = [
  'project_id',
  'ts',
  'event_id',
  'visitor_id',
  'path',
  'route',
  'device',
  'country',
  'environment',
  'lcp',
  'inp',
  'cls',
  'fcp',
  'ttfb',
  'element',
  'bot_score',
] as const;

/** upsert_sessions.sql's columns but the project, in the order of a session's line. */
export const SESSION_COLUMNS = [
  'id',
  'visitor_id',
  'started_at',
  'last_activity',
  'pageviews',
  'events',
  'entry_page',
  'entry_at',
  'exit_page',
  'exit_at',
  'referrer',
  'referrer_domain',
  'channel',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'country',
  'device',
  'browser',
  'os',
  'environment',
  'is_internal',
  'is_localhost',
  'bot_score',
] as const;

/** upsert_visitors.sql's columns but the project, in the order of a visitor's line. */
export const VISITOR_COLUMNS = [
  'id',
  'first_seen',
  'last_seen',
  'user_id',
  'traits',
  'groups',
  'experiments',
  'country',
  'region',
  'city',
  'postal_code',
  'timezone',
  'latitude',
  'longitude',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'device',
  'screen',
  'viewport',
  'language',
  'connection',
  'bot_score',
  'bot_signals',
  'is_internal',
] as const;

/** What an event's line holds: its stored columns but the project (the flush's). */
export type EventRow = Pick<EnrichedEvent, Exclude<(typeof EVENT_COLUMNS)[number], 'project_id'>>;
/** What a speed sample's line holds. */
export type SpeedRow = Pick<
  EnrichedEvent,
  'project_id' | 'ts' | 'id' | 'visitor_id' | 'path' | 'route' | 'device' | 'country' | 'environment'
> &
  Pick<EnrichedEvent, 'lcp' | 'inp' | 'cls' | 'fcp' | 'ttfb' | 'element' | 'bot_score'>;

/** The events' rows, stored under `projectId` (the flush's), in EVENT_COLUMNS. The same text is what
 *  COPY FROM STDIN reads into those columns (flush-executor.ts). */
export function eventRows(projectId: string, events: readonly EventRow[]): string {
  const project = copyValue(projectId);
  const lines: string[] = [];
  for (const e of events) lines.push(eventLine(project, e));
  return lines.join('\n');
}

/** The events' de-duplication keys (project_id, event_id, ts), in id order: concurrent writers take the
 *  keys in one order (insert_events.sql sorts with collate "C", by code point, which UTF-16 order matches
 *  but for astral characters against U+E000–U+FFFF: two such flushes may then deadlock, and are run again). */
export function keyRows(projectId: string, events: readonly EnrichedEvent[]): string {
  const sorted = [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const project = copyValue(projectId);
  const lines: string[] = [];
  for (const e of sorted) lines.push(`${project}\t${text(e.id)}\t${e.ts}`);
  return lines.join('\n');
}

/** One event's line, `project` already in its text form (copyValue). The members are read by name (several
 *  times faster than by a key from a list of columns) into one array that join() makes one flat string of:
 *  a template of the 39 values made a tree of cons strings on the way, more than twice the garbage an event. */
export function eventLine(project: string, e: EventRow): string {
  return [
    project,
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
    text(e.environment),
    e.is_internal ? 't' : 'f',
    e.is_localhost ? 't' : 'f',
    e.bot_score,
    text(e.issue_id),
  ].join('\t');
}

/** The Web Vitals of the `speed` events among `events`, in insert_speed_samples.sql's fields; null: none. */
export function speedRows(events: readonly EnrichedEvent[]): string | null {
  const lines: string[] = [];
  for (const e of events) if (e.name === 'speed') lines.push(speedLine(e));
  return lines.length === 0 ? null : lines.join('\n');
}

/** One speed sample's line, in SPEED_COLUMNS. */
export function speedLine(e: SpeedRow): string {
  return [
    text(e.project_id),
    e.ts,
    text(e.id),
    text(e.visitor_id),
    text(e.path),
    text(e.route),
    text(e.device),
    text(e.country),
    text(e.environment),
    float(e.lcp),
    float(e.inp),
    float(e.cls),
    float(e.fcp),
    float(e.ttfb),
    text(e.element),
    e.bot_score,
  ].join('\t');
}

/** Log lines in insert_logs.sql's fields, in input order (the statement numbers them so). */
export function logRows(lines: readonly PendingLog[]): string {
  return lines
    .map((l) =>
      [
        text(l.ts ?? null),
        text(l.level),
        text(l.kind),
        text(l.source),
        text(l.message),
        copyValue(l.data ?? {}),
        text(l.visitor),
        text(l.session),
      ].join('\t'),
    )
    .join('\n');
}

/** Session deltas in upsert_sessions.sql's fields, in the rows' order. */
export function sessionRows(rows: readonly SessionDelta[]): string {
  return rows.map(sessionLine).join('\n');
}

/** One session delta's line, in SESSION_COLUMNS. */
export function sessionLine(s: SessionDelta): string {
  return [
    text(s.id),
    text(s.visitor_id),
    s.started_at,
    s.last_activity,
    s.pageviews,
    s.events,
    text(s.entry_page),
    text(s.entry_at),
    text(s.exit_page),
    text(s.exit_at),
    text(s.referrer),
    text(s.referrer_domain),
    text(s.channel),
    text(s.utm_source),
    text(s.utm_medium),
    text(s.utm_campaign),
    text(s.country),
    text(s.device),
    text(s.browser),
    text(s.os),
    text(s.environment),
    s.is_internal ? 't' : 'f',
    s.is_localhost ? 't' : 'f',
    s.bot_score,
  ].join('\t');
}

/** Visitor deltas in upsert_visitors.sql's fields, in the rows' order; the jsonb members as JSON text. */
export function visitorRows(rows: readonly VisitorDelta[]): string {
  return rows.map(visitorLine).join('\n');
}

/** One visitor delta's line, in VISITOR_COLUMNS. */
export function visitorLine(v: VisitorDelta): string {
  return [
    text(v.id),
    v.first_seen,
    v.last_seen,
    text(v.user_id),
    copyValue(v.traits),
    copyValue(v.groups),
    copyValue(v.experiments),
    text(v.country),
    text(v.region),
    text(v.city),
    text(v.postal_code),
    text(v.timezone),
    float(v.latitude),
    float(v.longitude),
    text(v.browser),
    text(v.browser_version),
    text(v.os),
    text(v.os_version),
    text(v.device),
    text(v.screen),
    text(v.viewport),
    text(v.language),
    text(v.connection),
    v.bot_score,
    v.bot_signals == null ? '\\N' : copyValue(JSON.stringify(v.bot_signals)),
    v.is_internal ? 't' : 'f',
  ].join('\t');
}

/** A nullable text column. */
const text = (s: string | null | undefined): string => (s === null || s === undefined ? '\\N' : copyValue(s));

/** A float8 column: null for what is not a finite number (NaN and ±Infinity are no measurement). */
const float = (n: number | null): string => (n === null || !Number.isFinite(n) ? '\\N' : String(n));

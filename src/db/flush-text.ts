// The one form a flush's rows travel in: COPY's text format (copy-text.ts: a line a row, fields split by
// tabs, \N for null, backslash escapes for backslash, tab and line breaks), sent as one text parameter that
// the statement splits (sql/queries/insert_events.sql, insert_speed_samples.sql, insert_logs.sql). Splitting
// text is several times cheaper for the database than reading the same rows as JSON, and escaping makes any
// value fit: no row needs a second form. Lines are joined by a line break, with none after the last.
import type { PendingLog } from '../../actors/project-actor.ts';
import type { EnrichedEvent } from '../ingest/enrich.ts';
import { copyValue } from './copy-text.ts';

/** The events' rows, stored under `projectId` (the flush's), in the columns of insert_events.sql (project_id
 *  first). The same text is what COPY FROM STDIN reads into those columns (flush-executor.ts). */
export function eventRows(projectId: string, events: readonly EnrichedEvent[]): string {
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

/** One event's line. The members are read by name (several times faster than by a key from a list of
 *  columns) into one array that join() makes one flat string of: a template of the 39 values made a tree
 *  of cons strings on the way, more than twice the garbage an event. */
function eventLine(project: string, e: EnrichedEvent): string {
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
  for (const e of events) {
    if (e.name !== 'speed') continue;
    lines.push(
      [
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
      ].join('\t'),
    );
  }
  return lines.length === 0 ? null : lines.join('\n');
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

/** A nullable text column. */
const text = (s: string | null | undefined): string => (s === null || s === undefined ? '\\N' : copyValue(s));

/** A float8 column: null for what is not a finite number (NaN and ±Infinity are no measurement). */
const float = (n: number | null): string => (n === null || !Number.isFinite(n) ? '\\N' : String(n));

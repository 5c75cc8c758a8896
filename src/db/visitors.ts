// Visitor and session records for the detail reads, and the internal-traffic marking.
import type { Sql } from 'postgres';
import type { BotSignals } from '../ingest/bot-score.ts';
import { query } from './queries.ts';

export type VisitorRow = {
  id: string;
  first_seen: Date;
  last_seen: Date;
  user_id: string | null;
  traits: Record<string, unknown>;
  experiments: Record<string, string>;
  country: string | null;
  region: string | null;
  city: string | null;
  postal_code: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
  browser: string | null;
  browser_version: string | null;
  os: string | null;
  os_version: string | null;
  device: string | null;
  screen: string | null;
  viewport: string | null;
  language: string | null;
  connection: string | null;
  bot_score: number;
  bot_signals: Partial<BotSignals>;
  is_internal: boolean;
};
export type VisitorSessionRow = {
  id: string;
  started_at: Date;
  last_activity: Date;
  pageviews: number;
  events: number;
  entry_page: string | null;
  exit_page: string | null;
  referrer: string | null;
};
export type SessionHeaderRow = {
  id: string;
  visitor_id: string;
  started_at: Date;
  last_activity: Date;
  bot_score: number;
  bot_signals: Partial<BotSignals> | null;
};
export type SessionEventRow = {
  id: string;
  name: string;
  ts: Date;
  path: string | null;
  route: string | null;
  title: string | null;
  referrer: string | null;
  props: Record<string, unknown>;
};

export async function findVisitor(sql: Sql, projectId: string, id: string) {
  const [row] = await query<VisitorRow>(sql, 'find_visitor', [projectId, id]);
  return row;
}
export const listVisitorSessions = (sql: Sql, projectId: string, id: string) =>
  query<VisitorSessionRow>(sql, 'list_visitor_sessions', [projectId, id]);
export const listTopPages = (sql: Sql, projectId: string, sessionIds: string[]) =>
  query<{ value: string; pageviews: number }>(sql, 'list_visitor_top_pages', [projectId, sessionIds]);

export async function markVisitorInternal(sql: Sql, projectId: string, id: string, internal: boolean) {
  const [row] = await query<{ visitors: number; sessions: number; events: number }>(sql, 'mark_visitor_internal', [
    projectId,
    id,
    internal,
  ]);
  return row!;
}

export async function findSession(sql: Sql, projectId: string, id: string) {
  const [row] = await query<SessionHeaderRow>(sql, 'find_session', [projectId, id]);
  return row;
}
export const listSessionEvents = (
  sql: Sql,
  projectId: string,
  sessionId: string,
  after: { at: Date; id: string } | null,
  limit: number,
) =>
  query<SessionEventRow>(sql, 'list_session_events', [projectId, sessionId, after?.at ?? null, after?.id ?? '', limit]);

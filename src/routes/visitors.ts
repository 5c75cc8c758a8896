// Visitor- and session-level reads (detail access) and the internal-traffic marking (admin access).
import type { PendingQuery } from 'postgres';
import * as v from 'valibot';
import { HttpError, notFound } from '../errors.ts';
import {
  findSession,
  findVisitor,
  listSessionEvents,
  listTopPages,
  listVisitorSessions,
  markVisitorInternal,
  type SessionEventRow,
} from '../db/visitors.ts';
import { BOT_WEIGHTS } from '../ingest/bot-score.ts';
import { decodeCursor, page, type Keyset } from '../query/cursor.ts';
import type { Scope } from '../query/filters.ts';
import type { Services } from '../services.ts';
import { exportFormats, exportReply, formatOf, type Column } from '../query/export/index.ts';
import { echoFilters, rangeView, readQueryEntries, toReadParams } from '../query/params.ts';
import { listSessions, listVisitors, type SessionListRow, type VisitorListRow } from '../query/people.ts';
import { EXPORT_ROWS } from '../query/breakdown.ts';
import { readScope } from '../query/scope.ts';
import { route } from './route.ts';
import { iso } from './schemas.ts';
import { visitorProfile } from './visitor-profile.ts';
import {
  sessionEventsResponse,
  sessionsResponse,
  visitorPatchResponse,
  visitorResponse,
  visitorsResponse,
} from './responses-visitors.ts';

/** limit: 1–100 for a page, up to 1000 a read when exporting. */
const exportLimit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,4}$/, 'must be 1 to 100 (1000 with format)'),
    v.transform(Number),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(1000, 'must be at most 1000'),
  ),
);

const eventColumns: Column[] = [
  { key: 'id', type: 'text' },
  { key: 'name', type: 'text' },
  { key: 'ts', type: 'timestamp' },
  { key: 'page.path', type: 'text' },
  { key: 'page.route', type: 'text' },
  { key: 'page.title', type: 'text' },
  { key: 'page.referrer', type: 'text' },
  { key: 'props', type: 'text' },
];

const eventView = (e: SessionEventRow) => ({
  id: e.id,
  name: e.name,
  ts: iso(e.ts),
  page: { path: e.path, route: e.route, title: e.title, referrer: e.referrer },
  props: e.props ?? {},
});

const listQuery = v.object({
  ...readQueryEntries,
  limit: exportLimit,
  cursor: v.optional(v.pipe(v.string(), v.minLength(1))),
  format: v.optional(v.picklist(exportFormats, 'must be csv, json or sql')),
});

type ListRow = { id: string; last_event: Date };
type Lister<R extends ListRow> = (
  sql: Services['sql'],
  scope: Scope,
  after: Keyset | null,
  limit: number,
) => PendingQuery<R[]>;

const visitorView = (r: VisitorListRow) => ({
  id: r.id,
  lastEventInRange: iso(r.last_event),
  pageviews: r.pageviews,
  sessions: r.sessions,
  events: r.events,
  firstSeen: iso(r.first_seen),
  lastSeen: iso(r.last_seen),
  userId: r.user_id,
  country: r.country,
  device: { type: r.device, browser: r.browser, os: r.os },
  isInternal: r.is_internal,
  botScore: r.bot_score,
});
const visitorColumns: Column[] = [
  { key: 'id', type: 'text' },
  { key: 'lastEventInRange', type: 'timestamp' },
  { key: 'pageviews', type: 'integer' },
  { key: 'sessions', type: 'integer' },
  { key: 'events', type: 'integer' },
  { key: 'firstSeen', type: 'timestamp' },
  { key: 'lastSeen', type: 'timestamp' },
  { key: 'userId', type: 'text' },
  { key: 'country', type: 'text' },
  { key: 'device.type', type: 'text' },
  { key: 'device.browser', type: 'text' },
  { key: 'device.os', type: 'text' },
  { key: 'isInternal', type: 'boolean' },
  { key: 'botScore', type: 'integer' },
];

const sessionView = (r: SessionListRow) => ({
  id: r.id,
  visitor: r.visitor_id,
  startedAt: iso(r.started_at),
  durationMs: r.last_activity.getTime() - r.started_at.getTime(),
  pageviews: r.pageviews,
  events: r.events,
  entryPage: r.entry_page,
  exitPage: r.exit_page,
  referrerDomain: r.referrer_domain,
  channel: r.channel,
  country: r.country,
  device: { type: r.device, browser: r.browser, os: r.os },
  isInternal: r.is_internal,
  bot: { score: r.bot_score },
});
const sessionColumns: Column[] = [
  { key: 'id', type: 'text' },
  { key: 'visitor', type: 'text' },
  { key: 'startedAt', type: 'timestamp' },
  { key: 'durationMs', type: 'integer' },
  { key: 'pageviews', type: 'integer' },
  { key: 'events', type: 'integer' },
  { key: 'entryPage', type: 'text' },
  { key: 'exitPage', type: 'text' },
  { key: 'referrerDomain', type: 'text' },
  { key: 'channel', type: 'text' },
  { key: 'country', type: 'text' },
  { key: 'device.type', type: 'text' },
  { key: 'device.browser', type: 'text' },
  { key: 'device.os', type: 'text' },
  { key: 'isInternal', type: 'boolean' },
  { key: 'bot.score', type: 'integer' },
];

/** A list route under the shared read parameters: one keyset page, or with `format` every row from the
 *  cursor on (up to EXPORT_ROWS), read in pages from one statement's held cursor. */
function listRoute<R extends ListRow>(
  noun: 'visitors' | 'sessions',
  list: Lister<R>,
  view: (r: R) => Record<string, unknown>,
  columns: Column[],
) {
  return route({
    method: 'GET',
    path: `/v2/projects/{project}/${noun}`,
    response: noun === 'visitors' ? visitorsResponse : sessionsResponse,
    access: 'detail',
    tag: 'Visitors',
    summary: `${noun[0]!.toUpperCase()}${noun.slice(1)} with events in the range (shared filters apply), most recently active first, paged; \`format\` exports them all.`,
    query: listQuery,
    async handler({ query, project, services, headers }) {
      const params = toReadParams(query, new Date());
      const scope = (await readScope(services.sql, [project.id], params)).current;
      const envelope = {
        range: rangeView(scope.range),
        traffic: params.traffic,
        environment: params.environment,
        filters: echoFilters(params.filters),
      };
      const after = decodeCursor(query.cursor);
      const format = formatOf(query, headers.accept);
      if (format) {
        async function* all() {
          const rows = list(services.sql, scope, after, EXPORT_ROWS);
          for await (const batch of services.pagedRead(rows, query.limit ?? 1000)) {
            for (const r of batch) yield view(r);
          }
        }
        return exportReply(format, {
          name: `${noun}_${project.id}`,
          columns,
          rows: all(),
          envelope: { ...envelope, nextCursor: null },
        });
      }
      if ((query.limit ?? 20) > 100) throw overPageLimit();
      const limit = query.limit ?? 20;
      const rows = await list(services.sql, scope, after, limit + 1);
      const shown = page(rows, limit, (r) => ({ at: r.last_event, id: r.id }));
      return { data: shown.rows.map(view), nextCursor: shown.nextCursor, ...envelope };
    },
  });
}

const overPageLimit = () =>
  new HttpError('VALIDATION_FAILED', 'limit must be 1 to 100 (up to 1000 with format).', [
    { field: 'query.limit', message: 'must be 1 to 100 without format' },
  ]);

export const visitorRoutes = [
  listRoute('visitors', listVisitors, visitorView, visitorColumns),
  listRoute('sessions', listSessions, sessionView, sessionColumns),
  route({
    method: 'GET',
    path: '/v2/projects/{project}/visitors/{visitor}',
    response: visitorResponse,
    access: 'detail',
    tag: 'Visitors',
    summary:
      'One visitor: visits, active days, return rates, identity, experiments, geo, device, top pages, recent sessions, bot verdict.',
    async handler({ params, project, services }) {
      const visitor = await findVisitor(services.sql, project.id, params.visitor!);
      if (!visitor) throw notFound(`Visitor ${params.visitor} not found.`);
      const sessions = await listVisitorSessions(services.sql, project.id, visitor.id);
      const topPages = await listTopPages(
        services.sql,
        project.id,
        sessions.map((s) => s.id),
      );
      return { data: visitorProfile(visitor, sessions, topPages) };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v2/projects/{project}/visitors/{visitor}',
    response: visitorPatchResponse,
    access: 'admin',
    tag: 'Visitors',
    summary:
      'Mark a visitor as internal traffic (or not): the visitor, their sessions and events in this project, and their later events.',
    body: v.strictObject({ isInternal: v.boolean() }),
    async handler({ params, project, body, services }) {
      if (!(await findVisitor(services.sql, project.id, params.visitor!)))
        throw notFound(`Visitor ${params.visitor} not found.`);
      // First the project's actor (wherever it lives): it marks the visitor's later events alike, drops an
      // internal visitor from realtime (human traffic only), and writes what it placed before; then the
      // stored events, sessions and visitor change, all of them. If the actor cannot be reached, realtime
      // drops them within five minutes, and their events follow once the actor next starts (it reads the
      // internal visitors back).
      await services.cluster
        .project(project.id)
        .then((p) => p.markInternal(params.visitor!, body.isInternal))
        .catch((err: unknown) =>
          services.log.warn("the project's actor could not be told of a visitor marked internal", {
            err,
            projectId: project.id,
          }),
        );
      const updated = await markVisitorInternal(services.sql, project.id, params.visitor!, body.isInternal);
      if (updated.visitors === 0) throw notFound(`Visitor ${params.visitor} not found.`);
      return {
        data: {
          id: params.visitor,
          isInternal: body.isInternal,
          eventsUpdated: updated.events,
          sessionsUpdated: updated.sessions,
        },
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v2/projects/{project}/sessions/{session}/events',
    response: sessionEventsResponse,
    access: 'detail',
    tag: 'Visitors',
    summary: "A session's header and its events in order, paged.",
    query: v.object({
      limit: exportLimit,
      cursor: v.optional(v.pipe(v.string(), v.minLength(1))),
      format: v.optional(v.picklist(exportFormats, 'must be csv, json or sql')),
    }),
    async handler({ params, project, query, services, headers }) {
      const s = await findSession(services.sql, project.id, params.session!);
      if (!s) throw notFound(`Session ${params.session} not found.`);
      const reasons = sessionReasons(s.bot_signals, s.bot_score);
      const session = {
        id: s.id,
        visitor: s.visitor_id,
        startedAt: iso(s.started_at),
        durationMs: s.last_activity.getTime() - s.started_at.getTime(),
        bot: { score: s.bot_score, reasons },
      };
      let after = decodeCursor(query.cursor);
      const format = formatOf(query, headers.accept);
      if (format) {
        // Every event of the session (up to 1,000,000), read in keyset pages and streamed.
        const pageSize = query.limit ?? 1000;
        async function* all() {
          for (let sent = 0; sent < 1_000_000;) {
            const rows = await listSessionEvents(services.sql, project.id, s!.id, after, pageSize);
            // csv and sql carry props as JSON text; json keeps the object, as in the normal answer.
            for (const e of rows)
              yield format === 'json' ? eventView(e) : { ...eventView(e), props: JSON.stringify(e.props ?? {}) };
            sent += rows.length;
            if (rows.length < pageSize) return;
            after = { at: rows.at(-1)!.ts, id: rows.at(-1)!.id };
          }
        }
        return exportReply(format, {
          name: `session_${s.id}`,
          columns: eventColumns,
          rows: all(),
          envelope: { session, nextCursor: null },
        });
      }
      if ((query.limit ?? 20) > 100) throw overPageLimit();
      const limit = query.limit ?? 20;
      const rows = await listSessionEvents(services.sql, project.id, s.id, after, limit + 1);
      const shown = page(rows, limit, (r) => ({ at: r.ts, id: r.id }));
      return { session, data: shown.rows.map(eventView), nextCursor: shown.nextCursor };
    },
  }),
];

/** What each stored signal weighs when it fires (pointerEvents when false). */
const SIGNAL_WEIGHTS: Record<string, number> = {
  webdriver: BOT_WEIGHTS.webdriver,
  headless: BOT_WEIGHTS.headless,
  uaMismatch: BOT_WEIGHTS.uaMismatch,
  uniformDwell: BOT_WEIGHTS.uniformDwell,
  datacenterAsn: BOT_WEIGHTS.datacenterAsn,
  pointerEvents: BOT_WEIGHTS.noPointerEvents,
};

/** A session's reasons. Signals are stored per visitor only, so these are the visitor's fired signals that
 *  can be the session's own: none for a session scored 0, and none weighing more than the session's score
 *  (a score is its reasons' weights summed). */
function sessionReasons(signals: Record<string, unknown> | null, score: number): string[] {
  if (score === 0 || !signals) return [];
  return Object.entries(signals)
    .filter(
      ([k, on]) => (k === 'pointerEvents' ? on === false : on === true) && (SIGNAL_WEIGHTS[k] ?? Infinity) <= score,
    )
    .map(([k]) => k);
}

// Visitor- and session-level reads (detail access) and the internal-traffic marking (admin access).
import * as v from 'valibot';
import { notFound } from '../errors.ts';
import { findSession, findVisitor, listSessionEvents, listTopPages, listVisitorSessions, markVisitorInternal } from '../db/visitors.ts';
import { decodeCursor, nextCursor } from '../query/cursor.ts';
import { echoFilters, rangeView, readQueryEntries, toReadParams } from '../query/params.ts';
import { listSessions, listVisitors } from '../query/people.ts';
import { readScope } from '../query/scope.ts';
import { route } from './route.ts';
import { iso } from './schemas.ts';
import { visitorProfile } from './visitor-profile.ts';

const limit = v.optional(v.pipe(v.string(), v.regex(/^[0-9]{1,3}$/, 'must be 1 to 100'), v.transform(Number), v.minValue(1, 'must be 1 to 100'), v.maxValue(100, 'must be 1 to 100')), '20');

const listQuery = v.object({ ...readQueryEntries, limit, cursor: v.optional(v.pipe(v.string(), v.minLength(1))) });

export const visitorRoutes = [
  route({
    method: 'GET', path: '/v2/projects/{project}/visitors', access: 'detail', tag: 'Visitors',
    summary: 'Visitors with events in the range (shared filters apply), most recently active first, paged.',
    query: listQuery,
    async handler({ query, project, services }) {
      const params = toReadParams(query, new Date());
      const scope = (await readScope(services.sql, [project.id], params)).current;
      const rows = await listVisitors(services.sql, scope, decodeCursor(query.cursor), query.limit);
      return {
        data: rows.map((r) => ({
          id: r.id, lastEventInRange: iso(r.last_event), pageviews: r.pageviews, sessions: r.sessions, events: r.events,
          firstSeen: iso(r.first_seen), lastSeen: iso(r.last_seen), userId: r.user_id, country: r.country,
          device: { type: r.device, browser: r.browser, os: r.os }, isInternal: r.is_internal, botScore: r.bot_score,
        })),
        nextCursor: nextCursor(rows, query.limit, (r) => ({ at: r.last_event, id: r.id })),
        range: rangeView(scope.range), traffic: params.traffic, environment: params.environment, filters: echoFilters(params.filters),
      };
    },
  }),
  route({
    method: 'GET', path: '/v2/projects/{project}/sessions', access: 'detail', tag: 'Visitors',
    summary: 'Sessions with events in the range (shared filters apply), most recently active first, paged.',
    query: listQuery,
    async handler({ query, project, services }) {
      const params = toReadParams(query, new Date());
      const scope = (await readScope(services.sql, [project.id], params)).current;
      const rows = await listSessions(services.sql, scope, decodeCursor(query.cursor), query.limit);
      return {
        data: rows.map((r) => ({
          id: r.id, visitor: r.visitor_id, startedAt: iso(r.started_at), durationMs: r.last_activity.getTime() - r.started_at.getTime(),
          pageviews: r.pageviews, events: r.events, entryPage: r.entry_page, exitPage: r.exit_page,
          referrerDomain: r.referrer_domain, channel: r.channel, country: r.country,
          device: { type: r.device, browser: r.browser, os: r.os }, isInternal: r.is_internal, bot: { score: r.bot_score },
        })),
        nextCursor: nextCursor(rows, query.limit, (r) => ({ at: r.last_event, id: r.id })),
        range: rangeView(scope.range), traffic: params.traffic, environment: params.environment, filters: echoFilters(params.filters),
      };
    },
  }),
  route({
    method: 'GET', path: '/v2/projects/{project}/visitors/{visitor}', access: 'detail', tag: 'Visitors',
    summary: 'One visitor: visits, active days, return rates, identity, experiments, geo, device, top pages, recent sessions, bot verdict.',
    async handler({ params, project, services }) {
      const visitor = await findVisitor(services.sql, project.id, params.visitor!);
      if (!visitor) throw notFound(`Visitor ${params.visitor} not found.`);
      const sessions = await listVisitorSessions(services.sql, project.id, visitor.id);
      const topPages = await listTopPages(services.sql, project.id, sessions.map((s) => s.id));
      return { data: visitorProfile(visitor, sessions, topPages) };
    },
  }),
  route({
    method: 'PATCH', path: '/v2/projects/{project}/visitors/{visitor}', access: 'admin', tag: 'Visitors',
    summary: 'Mark a visitor as internal traffic (or not): the visitor, their sessions and events in this project.',
    body: v.strictObject({ isInternal: v.boolean() }),
    async handler({ params, project, body, services }) {
      const updated = await markVisitorInternal(services.sql, project.id, params.visitor!, body.isInternal);
      if (updated.visitors === 0) throw notFound(`Visitor ${params.visitor} not found.`);
      return { data: { id: params.visitor, isInternal: body.isInternal, eventsUpdated: updated.events, sessionsUpdated: updated.sessions } };
    },
  }),
  route({
    method: 'GET', path: '/v2/projects/{project}/sessions/{session}/events', access: 'detail', tag: 'Visitors',
    summary: "A session's header and its events in order, paged.",
    query: v.object({ limit, cursor: v.optional(v.pipe(v.string(), v.minLength(1))) }),
    async handler({ params, project, query, services }) {
      const s = await findSession(services.sql, project.id, params.session!);
      if (!s) throw notFound(`Session ${params.session} not found.`);
      const rows = await listSessionEvents(services.sql, project.id, s.id, decodeCursor(query.cursor), query.limit);
      const reasons = Object.entries(s.bot_signals ?? {}).filter(([k, on]) => (k === 'pointerEvents' ? on === false : on === true)).map(([k]) => k);
      return {
        session: { id: s.id, visitor: s.visitor_id, startedAt: iso(s.started_at), durationMs: s.last_activity.getTime() - s.started_at.getTime(), bot: { score: s.bot_score, reasons } },
        data: rows.map((e) => ({
          id: e.id, name: e.name, ts: iso(e.ts),
          page: { path: e.path, route: e.route, title: e.title, referrer: e.referrer }, props: e.props ?? {},
        })),
        nextCursor: nextCursor(rows, query.limit, (r) => ({ at: r.ts, id: r.id })),
      };
    },
  }),
];

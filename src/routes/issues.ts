// Errors grouped into issues: the list (most recently seen first), status changes through the
// lifecycle machine (409 for an impossible transition), and an issue's events with parsed stacks.
import * as v from 'valibot';
import { decideTransition, eventForStatus } from '../../actors/issue-lifecycle.machine.ts';
import { conflict, notFound } from '../errors.ts';
import { parseBreadcrumbs } from '../error-tracking/breadcrumbs.ts';
import { parseStack } from '../error-tracking/stack-parser.ts';
import {
  findIssue,
  listIssueEvents,
  listIssues,
  updateIssueStatus,
  type IssueEventRow,
  type IssueRow,
} from '../db/issues.ts';
import { decodeCursor, page } from '../query/cursor.ts';
import { route } from './route.ts';
import { iso, pageLimit } from './schemas.ts';
import { issueEventsResponse, issuePatchResponse, issuesResponse } from './responses.ts';

const status = v.picklist(['open', 'resolved', 'ignored'], 'must be open, resolved or ignored');
const limit = pageLimit;
const cursor = v.optional(v.pipe(v.string(), v.minLength(1)));

const issueView = (i: IssueRow) => ({
  id: i.id,
  title: i.title,
  culprit: i.culprit,
  level: i.level,
  status: i.status,
  isRegression: i.is_regression,
  count: i.count,
  visitors: i.visitors,
  firstSeen: iso(i.first_seen),
  lastSeen: iso(i.last_seen),
  firstRelease: i.first_release,
  lastRelease: i.last_release,
  resolvedAt: iso(i.resolved_at),
});

const text = (x: unknown) => (typeof x === 'string' ? x : null);
const eventView = (e: IssueEventRow) => ({
  id: e.id,
  ts: iso(e.ts),
  visitor: e.visitor_id,
  release: e.release,
  environment: e.environment,
  page: { path: e.path },
  error: {
    type: text(e.props.type) ?? 'Error',
    message: text(e.props.message) ?? '',
    stack: parseStack(text(e.props.stack)),
  },
  breadcrumbs: parseBreadcrumbs(text(e.props.breadcrumbs)),
  device: {
    type: e.device,
    browser: e.browser,
    browserVersion: e.browser_version,
    os: e.os,
    osVersion: e.os_version,
    screen: e.screen,
    viewport: e.viewport,
    language: e.language,
    connection: e.connection,
  },
});

export const issueRoutes = [
  route({
    method: 'GET',
    path: '/v2/projects/{project}/issues',
    response: issuesResponse,
    access: 'project',
    tag: 'Issues',
    summary: 'Issues (grouped errors), most recently seen first; status filters, cursor pages.',
    query: v.object({ status: v.optional(status), limit, cursor }),
    async handler({ query, project, services }) {
      const rows = await listIssues(
        services.sql,
        project.id,
        query.status ?? null,
        decodeCursor(query.cursor),
        query.limit + 1,
      );
      const shown = page(rows, query.limit, (r) => ({ at: r.last_seen, id: r.id }));
      return { data: shown.rows.map(issueView), nextCursor: shown.nextCursor };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v2/projects/{project}/issues/{issue}',
    response: issuePatchResponse,
    access: 'admin',
    tag: 'Issues',
    summary: 'Resolve, ignore or reopen an issue. The lifecycle machine decides; an impossible transition is a 409.',
    body: v.strictObject({ status }),
    async handler({ body, params, project, services }) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const current = await findIssue(services.sql, project.id, params.issue!);
        if (!current) throw notFound(`Issue ${params.issue} not found.`);
        const decision = decideTransition(
          { status: current.status, isRegression: current.is_regression, resolvedAt: iso(current.resolved_at) },
          eventForStatus(body.status, new Date().toISOString()),
        );
        if (!decision.ok) throw conflict(decision.reason);
        const row = await updateIssueStatus(services.sql, project.id, current.id, current.status, decision.next);
        if (row) return { data: { id: row.id, status: row.status, resolvedAt: iso(row.resolved_at) } };
        // An occurrence changed the issue between the read and the write: decide again on the new state.
      }
      throw conflict('The issue kept changing; try again.');
    },
  }),
  route({
    method: 'GET',
    path: '/v2/projects/{project}/issues/{issue}/events',
    response: issueEventsResponse,
    access: 'project',
    tag: 'Issues',
    summary: "An issue's events, newest first: the error with its parsed stack, breadcrumbs and device.",
    query: v.object({ limit, cursor }),
    async handler({ query, params, project, services }) {
      if (!(await findIssue(services.sql, project.id, params.issue!)))
        throw notFound(`Issue ${params.issue} not found.`);
      const rows = await listIssueEvents(
        services.sql,
        project.id,
        params.issue!,
        decodeCursor(query.cursor),
        query.limit + 1,
      );
      const shown = page(rows, query.limit, (r) => ({ at: r.ts, id: r.id }));
      return { data: shown.rows.map(eventView), nextCursor: shown.nextCursor };
    },
  }),
];

// Issue records: the list, one issue's lifecycle state, status changes and the issue's events.
import type { Sql } from 'postgres';
import type { IssueStatus } from '../../actors/issue-lifecycle.machine.ts';
import { query } from './queries.ts';

export type IssueRow = {
  id: string;
  title: string;
  culprit: string;
  level: string;
  status: IssueStatus;
  is_regression: boolean;
  count: number;
  first_seen: Date;
  last_seen: Date;
  first_release: string | null;
  last_release: string | null;
  resolved_at: Date | null;
  visitors: number;
};
export type IssueEventRow = {
  id: string;
  ts: Date;
  visitor_id: string;
  release: string | null;
  environment: string;
  path: string | null;
  props: Record<string, unknown>;
  device: string | null;
  browser: string | null;
  browser_version: string | null;
  os: string | null;
  os_version: string | null;
  screen: string | null;
  viewport: string | null;
  language: string | null;
  connection: string | null;
};
export type Keyset = { at: Date; id: string } | null;

export const listIssues = (sql: Sql, projectId: string, status: IssueStatus | null, after: Keyset, limit: number) =>
  query<IssueRow>(sql, 'list_issues', [projectId, status, after?.at ?? null, after?.id ?? '', limit]);

export async function findIssue(sql: Sql, projectId: string, id: string) {
  const [row] = await query<{ id: string; status: IssueStatus; is_regression: boolean; resolved_at: Date | null }>(
    sql,
    'find_issue',
    [projectId, id],
  );
  return row;
}

export async function updateIssueStatus(
  sql: Sql,
  projectId: string,
  id: string,
  from: IssueStatus,
  next: { status: IssueStatus; isRegression: boolean; resolvedAt: string | null },
) {
  const [row] = await query<{ id: string; status: IssueStatus; resolved_at: Date | null }>(sql, 'update_issue_status', [
    projectId,
    id,
    from,
    next.status,
    next.isRegression,
    next.resolvedAt ? new Date(next.resolvedAt) : null,
  ]);
  return row;
}

export const listIssueEvents = (sql: Sql, projectId: string, issueId: string, after: Keyset, limit: number) =>
  query<IssueEventRow>(sql, 'list_issue_events', [projectId, issueId, after?.at ?? null, after?.id ?? '', limit]);

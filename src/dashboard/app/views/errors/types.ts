// The issue shapes the errors view reads (GET …/issues and …/issues/{issue}/events, as the spec lists them).
export type Status = 'open' | 'resolved' | 'ignored';

export type Issue = {
  id: string;
  title: string;
  culprit: string | null;
  level: string;
  status: Status;
  isRegression: boolean;
  count: number;
  visitors: number;
  firstSeen: string;
  lastSeen: string;
  firstRelease: string | null;
  lastRelease: string | null;
  resolvedAt: string | null;
};

export type Frame = {
  file: string | null;
  line: number | null;
  column: number | null;
  function: string | null;
  inApp: boolean;
};

export type IssueEvent = {
  id: string;
  ts: string;
  visitor: string;
  release: string | null;
  environment: string;
  page: { path: string | null };
  error: { type: string; message: string; stack: Frame[] };
  breadcrumbs: { ts: string; kind: string; message: string }[];
  device: {
    type: string | null;
    browser: string | null;
    browserVersion: string | null;
    os: string | null;
    osVersion: string | null;
    screen: string | null;
    viewport: string | null;
    language: string | null;
    connection: string | null;
  };
};

export type Page<T> = { data: T[]; nextCursor: string | null };

export const issuesPath = (project: string) => `/v2/projects/${encodeURIComponent(project)}/issues`;

/** A date-time as a short UTC text: the API's ranges are UTC, so the dashboard says UTC too. */
export const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '–');

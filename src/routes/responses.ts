// The success bodies of the routes, as valibot schemas: the OpenAPI document describes each answer
// from these (src/routes/openapi.ts). They are not checked at run time; test/routes/openapi.test.ts
// checks real answers against them, so they stay true. Visitors, members and speed have files of their
// own (responses-*.ts), built from the same pieces (response-parts.ts).
import * as v from 'valibot';
import { at, data, device, echo, int, maybe, paged, range, text } from './response-parts.ts';

export const healthResponse = v.object({
  status: v.literal('ok'),
  startedAt: at,
  failingProjects: v.pipe(int, v.description('How many projects keep failing their background work.')),
});

export const ingestResponse = v.object({
  accepted: int,
  duplicates: int,
  rejected: v.array(
    v.object({
      index: int,
      code: v.literal('LOUPE_INGEST_REJECTED'),
      reason: v.literal('VALIDATION_FAILED'),
      field: text,
      message: text,
    }),
  ),
});

const block = v.object({ value: v.number(), previous: v.number(), change: maybe(v.number()) });
export const statsResponse = v.object({
  data: v.object({
    visitors: block,
    sessions: block,
    pageviews: block,
    pagesPerSession: block,
    bounceRate: block,
    sessionDurationMs: block,
  }),
  previousRange: range,
  ...echo,
});

export const timeseriesResponse = v.object({
  data: v.array(v.object({ bucket: at, value: v.number(), previous: v.optional(v.number()) })),
  metric: text,
  interval: v.picklist(['hour', 'day', 'week', 'month']),
  ...echo,
});

const metricMembers = v.pipe(
  v.record(v.string(), v.union([v.number(), v.null()])),
  v.description(
    'One member a requested metric: visitors, pageviews, events, sessions, bounceRate, sessionDurationMs, ' +
      'pagesPerSession, timeOnPageMs, scrollDepth, conversionRate, or the sum:prop.<key> / avg:prop.<key> name.',
  ),
);
const breakdownRow = v.objectWithRest({ value: maybe(text), share: v.number() }, v.union([v.number(), v.null()]));
export const breakdownResponse = v.object({
  data: v.array(breakdownRow),
  dimension: text,
  total: int,
  nextCursor: maybe(text),
  ...echo,
});
export const projectBreakdownResponse = v.object({
  data: v.array(
    v.objectWithRest(
      {
        value: text,
        name: text,
        visibility: v.picklist(['public', 'private']),
        share: v.number(),
        change: metricMembers,
        speedScore: maybe(int),
        openIssues: maybe(int),
      },
      v.union([v.number(), v.null()]),
    ),
  ),
  dimension: v.literal('project'),
  total: int,
  nextCursor: maybe(text),
  previousRange: range,
  ...echo,
});

export const retentionResponse = v.object({
  data: v.array(
    v.object({
      cohort: at,
      visitors: int,
      periods: v.array(v.object({ offset: int, visitors: int, share: v.number() })),
    }),
  ),
  interval: v.picklist(['week', 'month']),
  ...echo,
});

const shareOf = (key: 'name' | 'code') => v.array(v.object({ [key]: text, share: v.number() }));
export const overviewResponse = data(
  v.object({
    online: int,
    viewsPerMinute: v.array(int),
    today: v.object({ visitors: int, pageviews: int, bounceRate: v.number(), avgSessionSeconds: int }),
    ingest: v.object({ last24h: v.object({ accepted: int, duplicates: int, rejected: int, rateLimited: int }) }),
    bots: v.object({ share: v.number(), headless: int, webdriver: int, datacenterAsn: int }),
    speed: v.object({
      lcp: maybe(v.number()),
      inp: maybe(v.number()),
      cls: maybe(v.number()),
      ttfb: maybe(v.number()),
    }),
    errors: v.object({ last30m: int, openIssues: int }),
    topPages: v.array(v.object({ path: text, views: int })),
    referrers: shareOf('name'),
    countries: shareOf('code'),
    release: v.object({ current: maybe(text), deployedAt: maybe(at), newIssuesSince: int }),
  }),
);

const valueCount = v.array(v.object({ value: maybe(text), visitors: int }));
const activeVisitor = v.object({
  visitor: text,
  page: maybe(text),
  country: maybe(text),
  lastSeen: at,
  pageviews: int,
});
export const realtimeResponse = v.object({
  data: v.object({ visitors: int, pageviewsPerMinute: v.number(), pages: valueCount, countries: valueCount }),
  window: range,
  visitors: v.optional(v.array(activeVisitor)),
});
export const realtimeVisitorsResponse = v.object({ data: v.array(activeVisitor), window: range });

const issue = v.object({
  id: text,
  title: text,
  culprit: maybe(text),
  level: text,
  status: v.picklist(['open', 'resolved', 'ignored']),
  isRegression: v.boolean(),
  count: int,
  visitors: int,
  firstSeen: at,
  lastSeen: at,
  firstRelease: maybe(text),
  lastRelease: maybe(text),
  resolvedAt: maybe(at),
});
export const issuesResponse = paged(issue);
export const issuePatchResponse = data(
  v.object({ id: text, status: v.picklist(['open', 'resolved', 'ignored']), resolvedAt: maybe(at) }),
);
export const issueEventsResponse = paged(
  v.object({
    id: text,
    ts: at,
    visitor: text,
    release: maybe(text),
    environment: text,
    page: v.object({ path: maybe(text) }),
    error: v.object({
      type: text,
      message: text,
      stack: v.array(
        v.object({
          file: maybe(text),
          line: maybe(int),
          column: maybe(int),
          function: maybe(text),
          inApp: v.boolean(),
        }),
      ),
    }),
    breadcrumbs: v.array(v.object({ ts: text, kind: text, message: text })),
    device,
  }),
);

const annotation = v.object({
  id: text,
  project: text,
  title: text,
  date: at,
  endDate: maybe(at),
  kind: text,
  note: maybe(text),
  url: maybe(text),
  createdAt: at,
  updatedAt: at,
});
export const annotationsResponse = v.object({ data: v.array(annotation), nextCursor: maybe(text), range });
export const annotationResponse = data(annotation);
export const deletedResponse = data(v.object({ id: text, deleted: v.literal(true) }));

const token = v.object({
  id: text,
  name: text,
  scope: v.picklist(['read', 'sql', 'admin']),
  projectIds: maybe(v.array(text)),
  hint: text,
  expiresAt: maybe(at),
  createdAt: at,
  lastUsedAt: maybe(at),
});
export const tokenCreatedResponse = data(v.object({ ...token.entries, token: text }));
export const tokensResponse = data(v.array(token));
export const tokenRevokedResponse = data(v.object({ id: text, revokedAt: at }));

const project = v.object({
  id: text,
  name: text,
  visibility: v.picklist(['public', 'private']),
  publicVisitorData: v.boolean(),
  createdAt: at,
  sqlEnabled: v.optional(v.boolean()),
  widgetReports: v.optional(v.boolean()),
  allowedOrigins: v.optional(v.array(text)),
  retentionDays: v.optional(int),
  dailySalt: v.optional(v.boolean()),
  publicKey: v.optional(text),
  secretKeyHint: v.optional(text),
  updatedAt: v.optional(at),
});
export const projectsResponse = data(v.array(project));
export const projectResponse = data(project);
export const projectCreatedResponse = data(v.object({ ...project.entries, secretKey: text }));
export const projectPatchResponse = data(
  v.object({
    id: text,
    name: text,
    visibility: v.picklist(['public', 'private']),
    publicVisitorData: v.boolean(),
    sqlEnabled: v.boolean(),
    widgetReports: v.boolean(),
    allowedOrigins: v.array(text),
    retentionDays: int,
    dailySalt: v.boolean(),
    updatedAt: at,
  }),
);
export const keysRotatedResponse = data(v.object({ id: text, publicKey: text, secretKey: text, updatedAt: at }));

const jobRun = v.object({
  ok: v.boolean(),
  startedAt: at,
  finishedAt: maybe(at),
  summary: v.record(v.string(), v.unknown()),
});
export const jobsResponse = data(v.array(v.object({ name: text, description: text, lastRun: maybe(jobRun) })));
export const jobRunResponse = data(v.object({ name: text, ...jobRun.entries }));

export const logLine = v.object({
  id: v.pipe(v.string(), v.regex(/^[0-9]{1,19}$/)),
  ts: at,
  level: v.picklist(['info', 'ok', 'warn', 'error']),
  kind: v.picklist(['ingest', 'transport', 'pipeline', 'signals', 'jobs', 'auth']),
  source: v.picklist(['api', 'sdk', 'engine', 'cron']),
  message: text,
  data: v.record(v.string(), v.unknown()),
  visitor: maybe(text),
  session: maybe(text),
});
export const logsResponse = v.object({ data: v.array(logLine), nextCursor: maybe(text) });

export const openApiResponse = v.object({
  openapi: v.literal('3.1.0'),
  info: v.object({ title: text, version: text, description: text }),
  servers: v.array(v.object({ url: text })),
  components: v.record(v.string(), v.unknown()),
  paths: v.record(v.string(), v.unknown()),
});
export const textBody = v.string();

/** The SQL route's plain answer: rows as objects keyed by column name (a repeated name gets `_2`, …). */
export const sqlResponse = v.object({
  data: v.array(v.record(v.string(), v.unknown())),
  columns: v.array(v.object({ name: text, type: text })),
  rowCount: int,
});

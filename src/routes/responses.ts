// The success bodies of the routes, as valibot schemas: the OpenAPI document describes each answer
// from these (src/routes/openapi.ts). They are not checked at run time; test/routes/openapi.test.ts
// checks real answers against them, so they stay true.
import * as v from 'valibot';
import { environments, trafficKinds } from '../query/params.ts';

const at = v.pipe(v.string(), v.isoTimestamp());
const int = v.pipe(v.number(), v.integer());
const text = v.string();
const maybe = <S extends v.GenericSchema>(s: S) => v.nullable(s);
const data = <S extends v.GenericSchema>(s: S) => v.object({ data: s });
const paged = <S extends v.GenericSchema>(row: S) => v.object({ data: v.array(row), nextCursor: maybe(text) });

/** The members every aggregate read echoes. */
export const range = v.object({ from: at, to: at });
const echo = {
  range,
  traffic: v.picklist(trafficKinds),
  environment: v.picklist(environments),
  filters: v.pipe(
    v.record(v.string(), v.string()),
    v.description('The applied filters by dimension; an excluded value starts with !.'),
  ),
};

export const healthResponse = v.object({ status: v.literal('ok'), startedAt: at });

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
const device = v.object({
  type: maybe(text),
  browser: maybe(text),
  browserVersion: maybe(text),
  os: maybe(text),
  osVersion: maybe(text),
  screen: maybe(text),
  viewport: maybe(text),
  language: maybe(text),
  connection: maybe(text),
});
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
    updatedAt: at,
  }),
);
export const keysRotatedResponse = data(v.object({ id: text, publicKey: text, secretKey: text, updatedAt: at }));

export const authSessionResponse = v.object({
  user: maybe(v.object({ id: text, login: text, name: maybe(text), avatarUrl: maybe(text) })),
  session: maybe(v.object({ expiresAt: at })),
  role: maybe(v.picklist(['owner', 'admin', 'analyst', 'viewer'])),
  isAdmin: v.boolean(),
});

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

const shortDevice = v.object({ type: maybe(text), browser: maybe(text), os: maybe(text) });
export const visitorsResponse = v.object({
  data: v.array(
    v.object({
      id: text,
      lastEventInRange: at,
      pageviews: int,
      sessions: int,
      events: int,
      firstSeen: at,
      lastSeen: at,
      userId: maybe(text),
      country: maybe(text),
      device: shortDevice,
      isInternal: v.boolean(),
      botScore: int,
    }),
  ),
  nextCursor: maybe(text),
  ...echo,
});
export const sessionsResponse = v.object({
  data: v.array(
    v.object({
      id: text,
      visitor: text,
      startedAt: at,
      durationMs: int,
      pageviews: int,
      events: int,
      entryPage: maybe(text),
      exitPage: maybe(text),
      referrerDomain: maybe(text),
      channel: maybe(text),
      country: maybe(text),
      device: shortDevice,
      isInternal: v.boolean(),
      bot: v.object({ score: int }),
    }),
  ),
  nextCursor: maybe(text),
  ...echo,
});

const signals = v.object({
  headless: maybe(v.boolean()),
  webdriver: maybe(v.boolean()),
  datacenterAsn: maybe(v.boolean()),
  pointerEvents: maybe(v.boolean()),
  uaMismatch: maybe(v.boolean()),
  uniformDwell: maybe(v.boolean()),
});
export const visitorResponse = data(
  v.object({
    id: text,
    firstSeen: at,
    lastSeen: at,
    sessions: int,
    pageviews: int,
    events: int,
    visitCount: int,
    daysActive: int,
    medianDaysBetweenVisits: v.number(),
    returnedWithin: v.object({ day: v.boolean(), week: v.boolean(), month: v.boolean() }),
    isInternal: v.boolean(),
    identity: v.object({ userId: maybe(text), traits: v.record(v.string(), v.unknown()) }),
    experiments: v.record(v.string(), v.string()),
    geo: v.object({
      country: maybe(text),
      region: maybe(text),
      city: maybe(text),
      postalCode: maybe(text),
      timezone: maybe(text),
      latitude: maybe(v.number()),
      longitude: maybe(v.number()),
    }),
    device,
    topPages: v.array(v.object({ value: maybe(text), pageviews: int })),
    recentSessions: v.array(
      v.object({
        id: text,
        startedAt: at,
        durationMs: int,
        pageviews: int,
        entryPage: maybe(text),
        exitPage: maybe(text),
        referrer: maybe(text),
      }),
    ),
    bot: v.object({ score: int, verdict: text, signals }),
  }),
);
export const visitorPatchResponse = data(
  v.object({ id: text, isInternal: v.boolean(), eventsUpdated: int, sessionsUpdated: int }),
);
export const sessionEventsResponse = v.object({
  session: v.object({
    id: text,
    visitor: text,
    startedAt: at,
    durationMs: int,
    bot: v.object({ score: int, reasons: v.array(text) }),
  }),
  data: v.array(
    v.object({
      id: text,
      name: text,
      ts: at,
      page: v.object({ path: maybe(text), route: maybe(text), title: maybe(text), referrer: maybe(text) }),
      props: v.record(v.string(), v.unknown()),
    }),
  ),
  nextCursor: maybe(text),
});

export const openApiResponse = v.object({
  openapi: v.literal('3.1.0'),
  info: v.object({ title: text, version: text, description: text }),
  servers: v.array(v.object({ url: text })),
  components: v.record(v.string(), v.unknown()),
  paths: v.record(v.string(), v.unknown()),
});
export const textBody = v.string();

// Loupe's configuration: the one place that reads process.env, validated once at start-up.
// Everything else receives a Config value; nothing below src/ reads the environment itself.
import * as v from 'valibot';

const flag = v.pipe(
  v.optional(v.string(), ''),
  v.transform((s) => ['1', 'true', 'yes', 'on'].includes(s.trim().toLowerCase())),
);
const blankToUndefined = v.pipe(
  v.optional(v.string()),
  v.transform((s) => (s === undefined || s.trim() === '' ? undefined : s.trim())),
);

const EnvSchema = v.object({
  PORT: v.pipe(v.optional(v.string(), '8080'), v.transform(Number), v.integer(), v.minValue(0), v.maxValue(65535)),
  HOST: v.optional(v.string(), '0.0.0.0'),
  PUBLIC_URL: blankToUndefined,
  DATABASE_URL: blankToUndefined,
  DATA_DIR: v.optional(v.string(), './data'),
  REDIS_URL: blankToUndefined,
  CRON_SECRET: blankToUndefined,
  DASHBOARD_ORIGIN: blankToUndefined,
  AUTH_COOKIE_DOMAIN: blankToUndefined,
  COOKIE_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/)), 'loupe'),
  OIDC_ISSUER: blankToUndefined,
  OAUTH_PROVIDER: v.optional(v.picklist(['oidc', 'github']), 'oidc'),
  GITHUB_URL: v.optional(v.pipe(v.string(), v.url()), 'https://github.com'),
  OAUTH_CLIENT_ID: blankToUndefined,
  OAUTH_CLIENT_SECRET: blankToUndefined,
  TRUST_PROXY: flag,
  GEOIP_DB: blankToUndefined,
  INGEST_RATE_PER_SECOND: v.pipe(v.optional(v.string(), '50'), v.transform(Number), v.number(), v.minValue(0.001)),
  INGEST_RATE_BURST: v.pipe(v.optional(v.string(), '200'), v.transform(Number), v.integer(), v.minValue(1)),
  INGEST_SECRET_RATE_PER_SECOND: v.pipe(
    v.optional(v.string(), '1000'),
    v.transform(Number),
    v.number(),
    v.minValue(0.001),
  ),
  INGEST_SECRET_RATE_BURST: v.pipe(v.optional(v.string(), '2000'), v.transform(Number), v.integer(), v.minValue(1)),
  PUBLIC_READ_RATE_PER_SECOND: v.pipe(v.optional(v.string(), '10'), v.transform(Number), v.number(), v.minValue(0.001)),
  PUBLIC_READ_RATE_BURST: v.pipe(v.optional(v.string(), '100'), v.transform(Number), v.integer(), v.minValue(1)),
  CHECKPOINT_MS: v.pipe(
    v.optional(v.string(), '5000'),
    v.transform(Number),
    v.integer(),
    v.minValue(10),
    v.maxValue(60_000),
  ),
  FLUSH_WRITER: v.optional(v.picklist(['auto', 'writer', 'client']), 'auto'),
  ROLLUP_BUILD_MS: v.optional(v.pipe(v.string(), v.transform(Number), v.integer(), v.minValue(0))),
  UPKEEP_MS: v.pipe(v.optional(v.string(), '60000'), v.transform(Number), v.integer(), v.minValue(0)),
  STATEMENT_TIMEOUT_MS: v.pipe(v.optional(v.string(), '60000'), v.transform(Number), v.integer(), v.minValue(0)),
  HEAVY_READS: v.pipe(
    v.optional(v.string(), ''),
    v.transform((s) => (s.trim() === '' ? undefined : Number(s))),
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  ),
  SQL_TIMEOUT_MS: v.pipe(v.optional(v.string(), '10000'), v.transform(Number), v.integer(), v.minValue(100)),
  SQL_CONCURRENCY: v.pipe(v.optional(v.string(), '4'), v.transform(Number), v.integer(), v.minValue(1)),
  SQL_EMBEDDED_MAX_COST: v.pipe(v.optional(v.string(), '50000'), v.transform(Number), v.number(), v.minValue(1)),
  // At most 1 TiB: a figure in bytes set by mistake is refused rather than taken as no bound at all.
  LIVE_BACKLOG_MB: v.pipe(
    v.optional(v.string(), '256'),
    v.transform(Number),
    v.integer(),
    v.minValue(1),
    v.maxValue(1024 * 1024),
  ),
  LOG_LEVEL: v.optional(v.picklist(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

export type Config = {
  port: number;
  host: string;
  publicUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  cronSecret: string | undefined;
  dashboardOrigin: string | undefined;
  authCookieDomain: string | undefined;
  cookiePrefix: string;
  oidcIssuer: string | undefined;
  /** oidc: OpenID Connect at OIDC_ISSUER; github: GitHub's OAuth apps (at GITHUB_URL). */
  oauthProvider: 'oidc' | 'github';
  githubUrl: string;
  oauthClientId: string | undefined;
  oauthClientSecret: string | undefined;
  trustProxy: boolean;
  geoipDb: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Token bucket per public key and client IP: sustained requests a second, and the burst. */
  ingestRate: { refillPerSecond: number; capacity: number };
  /** The same per project and client IP for secret-key requests: a backend or server SDK sends every
   *  visitor's events from its own few addresses, so its bucket is far larger. */
  ingestSecretRate: { refillPerSecond: number; capacity: number };
  /** Reads without a credential (public projects), per client IP: a public dashboard's page load makes
   *  about 15 reads, so the burst covers several and the rate a dashboard left open. */
  publicReadRate: { refillPerSecond: number; capacity: number };
  /** How long the deltas of flushes wait before they are applied to sessions and visitors, merged. */
  checkpointMs: number;
  /** The pause between passes of the background rollup builder (src/query/rollup/builder.ts); 0: none
   *  runs; unset: 1 s on PostgreSQL, 60 s embedded (PGlite is one session: a build holds every flush). */
  rollupBuildMs: number | undefined;
  /** Embedded: the pause between passes of the database's upkeep (src/db/upkeep.ts, what autovacuum does
   *  on PostgreSQL, which ignores this); 0: none runs. */
  upkeepMs: number;
  /** PostgreSQL: the longest one statement may run (0: no limit); docs/limits.md. */
  statementTimeoutMs: number;
  /** PostgreSQL: who sends a flush (docs/sql.md, "The write path"): 'writer', the flush writer's pipeline
   *  (src/db/wire); 'client', the `postgres` client; 'auto', the writer unless the database URL names
   *  several hosts (the writer connects to one; the client is then used, and says so at start). */
  flushWriter: 'auto' | 'writer' | 'client';
  /** Exports and long-range reads answered at once (others wait); unset: 1 embedded, 4 on PostgreSQL. */
  heavyReads: number | undefined;
  /** The SQL route (docs/sql-route.md): PostgreSQL's statement timeout, queries running at once per process
   *  (the embedded database runs one), and the planner cost the embedded database runs at most. */
  sql: { timeoutMs: number; concurrency: number; embeddedMaxCost: number };
  /** Bytes the process may hold, all together, for live readers (SSE streams, WebSockets) that are behind;
   *  past it, a reader that is behind is cut off when it is next written to (docs/live.md). */
  liveBacklogBytes: number;
};

/** Reads the environment (or the given map) into a Config; throws naming every bad variable. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Config> = {},
): Config {
  const result = v.safeParse(EnvSchema, env);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '?'}: ${i.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.output;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.PUBLIC_URL,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    cronSecret: e.CRON_SECRET,
    dashboardOrigin: e.DASHBOARD_ORIGIN,
    authCookieDomain: e.AUTH_COOKIE_DOMAIN,
    cookiePrefix: e.COOKIE_PREFIX,
    oidcIssuer: e.OIDC_ISSUER,
    oauthProvider: e.OAUTH_PROVIDER,
    githubUrl: e.GITHUB_URL,
    oauthClientId: e.OAUTH_CLIENT_ID,
    oauthClientSecret: e.OAUTH_CLIENT_SECRET,
    trustProxy: e.TRUST_PROXY,
    geoipDb: e.GEOIP_DB,
    logLevel: e.LOG_LEVEL,
    ingestRate: { refillPerSecond: e.INGEST_RATE_PER_SECOND, capacity: e.INGEST_RATE_BURST },
    ingestSecretRate: { refillPerSecond: e.INGEST_SECRET_RATE_PER_SECOND, capacity: e.INGEST_SECRET_RATE_BURST },
    publicReadRate: { refillPerSecond: e.PUBLIC_READ_RATE_PER_SECOND, capacity: e.PUBLIC_READ_RATE_BURST },
    checkpointMs: e.CHECKPOINT_MS,
    rollupBuildMs: e.ROLLUP_BUILD_MS,
    upkeepMs: e.UPKEEP_MS,
    statementTimeoutMs: e.STATEMENT_TIMEOUT_MS,
    flushWriter: e.FLUSH_WRITER,
    heavyReads: e.HEAVY_READS,
    sql: { timeoutMs: e.SQL_TIMEOUT_MS, concurrency: e.SQL_CONCURRENCY, embeddedMaxCost: e.SQL_EMBEDDED_MAX_COST },
    liveBacklogBytes: e.LIVE_BACKLOG_MB * 1024 * 1024,
    ...overrides,
  };
}

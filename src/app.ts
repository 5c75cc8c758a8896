// Wires Loupe together: database, migrations, project directory, credentials, routes, HTTP server.
// Returns a handle whose close() is the graceful shutdown (stop accepting, drain, close the database).
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Sql } from 'postgres';
import { LiveHub } from '../actors/live-hub.ts';
import { createActorRegistry } from '../actors/registry.ts';
import type { Config } from './config.ts';
import { createMemoryBus, createRedisBus } from './bus.ts';
import { openRedis, pingRedis } from './redis.ts';
import { createCluster, type Cluster } from './cluster.ts';
import { createLocalLeases, createRedisLeases } from './leases.ts';
import { startRollupBuilder } from './query/rollup/builder.ts';
import { startUpkeep } from './db/upkeep.ts';
import { readLogsMessage } from './bus-messages.ts';
import { createEventStore, type EventStore } from './db/event-store.ts';
import { createWireExecutor, type WireExecutor } from './db/wire/flush-executor.ts';
import { WriterUnsupported } from './db/wire/pool.ts';
import { openDatacenter } from './ingest/datacenter.ts';
import { openGeo } from './ingest/geo.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from './ingest/rate-limit.ts';
import { createCredentialResolver } from './auth/credentials.ts';
import { createGitHubProvider } from './auth/github.ts';
import { createOidcProvider } from './auth/oidc.ts';
import { shareForgetting } from './auth/shared-forgetting.ts';
import { TtlCache } from './auth/ttl-cache.ts';
import { openDatabase } from './db/client.ts';
import { findSession } from './db/members.ts';
import { migrate } from './db/migrate.ts';
import { createProjectDirectory } from './db/project-directory.ts';
import { findProjectIdBySecretKey } from './db/projects.ts';
import { findTokenByValue, touchToken } from './db/tokens.ts';
import { startHttpServer } from './http/server.ts';
import { LogFeeds } from './live/log-feeds.ts';
import { listLogs } from './db/logs.ts';
import { createLogger, type Logger } from './log.ts';
import { createProjectHealth, type ProjectHealth } from './project-health.ts';
import { allRoutes } from './routes/index.ts';
import { liveRoute } from './routes/live.ts';
import { OVERVIEW_CACHE_MS } from './routes/overview.ts';
import { createPipeline } from './routes/pipeline.ts';
import { createGate } from './gate.ts';
import { createPagedRead } from './db/held-cursor.ts';
import { createSqlRuntime } from './query/sql/runtime.ts';
import type { Services } from './services.ts';

/** `backlog`: what live readers that are behind hold now, and the budget for it (src/http/backlog.ts). */
export type Loupe = {
  port: number;
  services: Services;
  backlog: { readonly held: number; readonly limit: number };
  close: () => Promise<void>;
};

/** A project's lease lives 3 s and is renewed every second (src/cluster/renewal.ts): a process that dies
 *  holding projects leaves them without a holder for at most 3 s, and meanwhile their requests elsewhere
 *  are answered 503 with Retry-After at once (src/cluster/forward.ts; docs/live.md). */
const LEASE_TTL_MS = 3_000;
const LEASE_RENEW_MS = 1_000;

export async function startLoupe(config: Config, log: Logger = createLogger(config.logLevel)): Promise<Loupe> {
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    log,
    statementTimeoutMs: config.statementTimeoutMs,
    exclusive: true,
  });
  const { applied } = await migrate(db.sql);
  if (applied.length > 0) log.info('migrations applied', { applied });
  const projects = await createProjectDirectory(db.sql);
  const touched = new Map<string, number>();
  const credentials = createCredentialResolver({
    findToken: (value) => findTokenByValue(db.sql, value),
    findSession: (token) => findSession(db.sql, token),
    findSecretKeyProject: (value) => findProjectIdBySecretKey(db.sql, value),
    findPublicKeyProject: (key) => projects.byPublicKey(key)?.id,
    // last_used_at is written at most once a minute per token, off the request path.
    onTokenUsed: (id) => {
      const now = Date.now();
      if ((touched.get(id) ?? 0) > now - 60_000) return;
      touched.set(id, now);
      touchToken(db.sql, id).catch((err) => log.warn('could not record token use', { tokenId: id, err }));
    },
    cronSecret: config.cronSecret,
    cookiePrefix: config.cookiePrefix,
  });
  // Projects, keys, tokens and members changed by any process (the CLI, another server, psql): here at once.
  const unlistenDirectory = await db.listen('loupe_directory', () => {
    credentials.forgetAll();
    projects.refresh().catch((err: unknown) => log.warn('could not refresh the project directory', { err }));
  });
  const [geo, datacenter] = await Promise.all([openGeo({ cityDbDir: config.geoipDb }), openDatacenter()]);
  const redis = config.redisUrl
    ? openRedis(config.redisUrl, { name: 'loupe', onError: (err) => log.warn('redis error', { err }) })
    : null;
  // A REDIS_URL that does not answer stops the start with a message saying so, rather than a server that
  // says it runs beside Redis and fails every request that needs it.
  if (redis)
    await pingRedis(redis, config.redisUrl!).catch((err: unknown) => (redis.disconnect(), Promise.reject(err)));
  // Processes that share one database share one name in Redis: rate-limit buckets, leases and channels
  // start with it, so deployments (or test databases) that share a Redis never hear each other.
  const namespace = `loupe:${createHash('sha256')
    .update(config.databaseUrl ?? resolve(config.dataDir))
    .digest('hex')
    .slice(0, 12)}:`;
  const rateLimiter = redis
    ? createRedisRateLimiter(redis, { ...config.ingestRate, prefix: `${namespace}rl:` })
    : createMemoryRateLimiter(config.ingestRate);
  const secretRateLimiter = redis
    ? createRedisRateLimiter(redis, { ...config.ingestSecretRate, prefix: `${namespace}rls:` })
    : createMemoryRateLimiter(config.ingestSecretRate);
  const readRateLimiter = redis
    ? createRedisRateLimiter(redis, { ...config.publicReadRate, prefix: `${namespace}rlr:` })
    : createMemoryRateLimiter(config.publicReadRate);
  const bus = config.redisUrl ? createRedisBus(config.redisUrl) : createMemoryBus();
  const processId = Math.random().toString(36).slice(2);
  const leases = redis
    ? createRedisLeases(redis, {
        self: processId,
        prefix: `${namespace}lease:`,
        presenceKey: `${namespace}processes`,
        ttlMs: LEASE_TTL_MS,
      })
    : createLocalLeases(processId);
  const health = createProjectHealth(log);
  const writer = db.embedded ? undefined : flushWriter(db.sql, config.flushWriter, log);
  const store = reportingCheckpoints(
    createEventStore(db.sql, { owner: processId, embedded: db.embedded, writer: writer?.run }),
    health,
  );
  await store.ensurePartition(new Date());
  const stopFolds = await keepFoldJournal(store, { onlyProcess: !config.redisUrl, log, health });
  let cluster: Cluster | null = null;
  const actors = createActorRegistry({
    store,
    onDrop: (projectId) => cluster?.dropped(projectId),
    // The flush writer: two flushes of a project in flight, the second waiting in the writer's socket while
    // the first runs, so the backend never idles between them. The client: one, as a second one on another
    // connection contended with the first for the same index pages and cost more CPU an event than it saved
    // in idle time (docs/sql.md).
    maxConcurrentFlushes: writer ? 2 : 1,
    checkpointMs: config.checkpointMs,
    // A failed checkpoint is logged with its project by `health` (reportingCheckpoints).
    onError: (err, during) =>
      during === 'checkpoint'
        ? undefined
        : log.warn("could not read back live sessions and realtime: the project's visitors open new sessions", { err }),
    // Log lines committed here reach long-polls, SSE and WebSocket subscribers held by other processes.
    // Without Redis there are none: the in-memory bus would encode every line for nobody. With Redis out of
    // reach the publish fails (503): the lines are committed, only their live copy to other processes is
    // lost, and nothing must reject unheard (an unhandled rejection ends the process).
    onLogs: config.redisUrl
      ? (projectId, lines) =>
          void bus.publish(`${namespace}logs`, { from: processId, projectId, lines }).catch(() => {})
      : undefined,
  });
  // With Redis, other processes hear of every dropped credential at once (sign-out, revocation).
  const sharedForgetting = config.redisUrl
    ? shareForgetting(credentials, bus, `${namespace}credentials`, processId)
    : null;
  cluster = createCluster({
    actors,
    leases,
    bus,
    prefix: namespace,
    log,
    leaseMs: LEASE_TTL_MS,
    renewMs: LEASE_RENEW_MS,
  });
  const unsubscribeLogs = bus.subscribe(`${namespace}logs`, (message) => {
    const m = readLogsMessage(message);
    if (!m || m.from === processId) return;
    const actor = actors.peek(m.projectId);
    for (const line of m.lines) actor?.logs.append(line);
  });
  const services: Services = {
    config,
    sql: db.sql,
    log,
    projects,
    credentials: sharedForgetting?.resolver ?? credentials,
    signIn: signInProvider(config),
    actors,
    cluster,
    rateLimiter,
    secretRateLimiter,
    readRateLimiter,
    bus,
    overviews: new TtlCache(10_000, OVERVIEW_CACHE_MS),
    sqlRoute: createSqlRuntime({ sql: db.sql, databaseUrl: config.databaseUrl, config: config.sql, log }),
    startedAt: new Date(),
    health,
    // PGlite is one session: one heavy read at a time there; PostgreSQL's pool of 10 keeps 6 for the rest.
    heavyReads: createGate({ slots: config.heavyReads ?? (db.embedded ? 1 : 4), queue: 64, waitMs: 30_000 }),
    pagedRead: createPagedRead(db.sql, db.embedded),
    live: new LiveHub({
      logs: (id) => actors.logs(id),
      snapshot: async (id) => (await (await cluster.project(id)).realtime(0)).snapshot,
    }),
    feeds: new LogFeeds({
      read: (projectId, filter, after, limit) =>
        listLogs(db.sql, projectId, filter, after === null ? null : after.toString(), limit),
      ring: (id) => actors.logs(id),
      onError: (err, projectId) => log.warn('could not read log lines for live subscribers', { err, projectId }),
    }),
    lookups: { geo, isDatacenterIp: (ip) => datacenter.isDatacenterIp(ip) },
  };
  // Every process runs one; a project's days are built by whichever holds its builder lock. Embedded,
  // each build step holds the one session every flush needs, and rebuilding yesterday every second took
  // too large a share of it from ingest (docs/benchmarks.md): late events are coalesced over a minute.
  const rollupBuildMs = config.rollupBuildMs ?? (db.embedded ? 60_000 : 1_000);
  const stopRollups =
    rollupBuildMs > 0
      ? startRollupBuilder(
          db.sql,
          () => projects.all().map((p) => p.id),
          rollupBuildMs,
          (err) => log.warn('the rollup builder failed a pass; it tries again', { err }),
        )
      : async () => {};
  const stopUpkeep =
    db.embedded && config.upkeepMs > 0
      ? startUpkeep(db.sql, {
          everyMs: config.upkeepMs,
          onPass: (pass) => log.debug('database upkeep', pass),
          onError: (err) => log.warn('the database upkeep failed a pass; it tries again', { err }),
        })
      : async () => {};
  const routes = allRoutes();
  const pipeline = createPipeline(services);
  /** Everything but the HTTP server, in shutdown order: also when the server cannot listen (a port in
   *  use), so the database is closed and the data folder's lock released before the process exits. */
  const closeServices = async () => {
    await stopRollups();
    await stopUpkeep();
    await cluster.stop(); // flushes every actor, then frees the projects' leases
    await services.sqlRoute.close();
    stopFolds();
    unlistenDirectory();
    projects.stop();
    await rateLimiter.close();
    await secretRateLimiter.close();
    await readRateLimiter.close();
    await bus.close();
    redis?.disconnect();
    await writer?.close();
    await db.close();
  };
  const server = await startHttpServer({
    host: config.host,
    port: config.port,
    routes,
    sockets: [liveRoute(services)],
    admit: pipeline.admit,
    execute: pipeline.execute,
    dashboardOrigin: config.dashboardOrigin,
    trustProxy: config.trustProxy,
    liveBacklogBytes: config.liveBacklogBytes,
    log,
  }).catch(async (err: unknown) => {
    services.live.stop();
    unsubscribeLogs();
    await closeServices().catch(() => {});
    throw err;
  });

  let closing: Promise<void> | null = null;
  return {
    port: server.port,
    services,
    backlog: server.backlog,
    close: () =>
      (closing ??= (async () => {
        // Streams end at once (SSE clients reconnect elsewhere with Last-Event-ID), long-polls answer now.
        services.feeds.close();
        services.live.stop();
        unsubscribeLogs();
        sharedForgetting?.stop();
        await server.close();
        await closeServices();
      })()),
  };
}

/** The identity provider browser sign-in uses, or null (tokens only). */
/** The flush writer (src/db/wire) as `setting` asks, or none: flushes then go through the `postgres` client.
 *  'auto' falls back to the client, with a line saying why, where 'writer' refuses to start. */
function flushWriter(sql: Sql, setting: Config['flushWriter'], log: Logger): WireExecutor | undefined {
  if (setting === 'client') return undefined;
  try {
    return createWireExecutor(sql, {
      onOpenError: (err) =>
        log.warn('the flush writer could not connect: flushes go through the postgres client meanwhile', { err }),
    });
  } catch (err) {
    if (!(err instanceof WriterUnsupported) || setting === 'writer')
      throw new Error(
        `FLUSH_WRITER=${setting}: ${(err as Error).message}; FLUSH_WRITER=client sends flushes through the postgres client`,
      );
    log.info(`${err.message}: flushes go through the postgres client (FLUSH_WRITER=client)`);
    return undefined;
  }
}

function signInProvider(config: Config) {
  if (!config.oauthClientId) return null;
  if (config.oauthProvider === 'github')
    return createGitHubProvider({
      url: config.githubUrl,
      clientId: config.oauthClientId,
      clientSecret: config.oauthClientSecret,
    });
  if (!config.oidcIssuer) return null;
  return createOidcProvider({
    issuer: config.oidcIssuer,
    clientId: config.oauthClientId,
    clientSecret: config.oauthClientSecret,
  });
}

/** This process's part in the fold journal: a heartbeat, and the journal rows of processes that stopped
 *  without applying theirs. Alone (no Redis), every other owner's rows are applied at start; beside other
 *  processes, those of owners silent for a minute are, at start and every 30 seconds. */
async function keepFoldJournal(
  store: EventStore,
  opts: { onlyProcess: boolean; log: Logger; health: ProjectHealth },
): Promise<() => void> {
  const recover = async () => {
    // Project by project: one project's rows that cannot be applied are reported, and stay for the next try.
    const applied = await store.recover({
      onlyProcess: opts.onlyProcess,
      onProject: (projectId, err) =>
        err === null ? opts.health.succeeded(projectId, 'recovery') : opts.health.failed(projectId, 'recovery', err),
    });
    if (applied > 0)
      opts.log.info('applied sessions and visitors journaled by a stopped process', { journalRows: applied });
  };
  await store.heartbeat();
  // The server starts even if they cannot be applied now: the rows stay, and are tried again (by the next
  // start, or beside other processes every 30 seconds). Events themselves are never at stake here.
  await recover().catch((err: unknown) =>
    opts.log.error("could not apply a stopped process's journaled sessions and visitors", { err }),
  );
  if (opts.onlyProcess) return () => {};
  const timer = setInterval(() => {
    store
      .heartbeat()
      .then(recover)
      .catch((err: unknown) => opts.log.warn('fold journal upkeep failed', { err }));
  }, 30_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** The store, with each project's checkpoint outcome told to `health`: a project that keeps failing is
 *  reported (log line, /v2/health) while its actor keeps its deltas and tries again, and the others go on. */
function reportingCheckpoints(store: EventStore, health: ProjectHealth): EventStore {
  return {
    ...store,
    checkpoint: (projectId, pending) =>
      store.checkpoint(projectId, pending).then(
        () => health.succeeded(projectId, 'checkpoint'),
        (err: unknown) => {
          health.failed(projectId, 'checkpoint', err);
          throw err;
        },
      ),
  };
}

// Wires Loupe together: database, migrations, project directory, credentials, routes, HTTP server.
// Returns a handle whose close() is the graceful shutdown (stop accepting, drain, close the database).
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { LiveHub } from '../actors/live-hub.ts';
import { createActorRegistry } from '../actors/registry.ts';
import type { Config } from './config.ts';
import { createMemoryBus, createRedisBus, openRedis } from './bus.ts';
import { createCluster, type Cluster } from './cluster.ts';
import { createLocalLeases, createRedisLeases } from './leases.ts';
import { readLogsMessage } from './bus-messages.ts';
import { createEventStore, type EventStore } from './db/event-store.ts';
import { WRITER_SESSION, WRITER_STATEMENTS } from './db/speculative-flush.ts';
import { createWriterPool, writerOptions } from './db/wire/pool.ts';
import { openDatacenter } from './ingest/datacenter.ts';
import { openGeo } from './ingest/geo.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from './ingest/rate-limit.ts';
import { createCredentialResolver } from './auth/credentials.ts';
import { TtlCache } from './auth/ttl-cache.ts';
import { openDatabase } from './db/client.ts';
import { findSession } from './db/members.ts';
import { migrate } from './db/migrate.ts';
import { createProjectDirectory } from './db/project-directory.ts';
import { findProjectIdBySecretKey } from './db/projects.ts';
import { findTokenByValue, touchToken } from './db/tokens.ts';
import { startHttpServer } from './http/server.ts';
import { createLogger, type Logger } from './log.ts';
import { allRoutes } from './routes/index.ts';
import { liveRoute } from './routes/live.ts';
import { OVERVIEW_CACHE_MS } from './routes/overview.ts';
import { createPipeline } from './routes/pipeline.ts';
import { createSqlRuntime } from './query/sql/runtime.ts';
import type { Services } from './services.ts';

export type Loupe = { port: number; services: Services; close: () => Promise<void> };

/** A project's lease outlives a silent holder by at most this long (renewed every 3 s): a process that
 *  dies holding projects delays their requests elsewhere by up to 10 s (answered 503, then retried). */
const LEASE_TTL_MS = 10_000;

export async function startLoupe(config: Config, log: Logger = createLogger(config.logLevel)): Promise<Loupe> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, log });
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
  const [geo, datacenter] = await Promise.all([openGeo({ cityDbDir: config.geoipDb }), openDatacenter()]);
  const redis = config.redisUrl
    ? openRedis(config.redisUrl, { name: 'loupe', onError: (err) => log.warn('redis error', { err }) })
    : null;
  // Processes that share one database share one name in Redis: rate-limit buckets, leases and channels
  // start with it, so deployments (or test databases) that share a Redis never hear each other.
  const namespace = `loupe:${createHash('sha256')
    .update(config.databaseUrl ?? resolve(config.dataDir))
    .digest('hex')
    .slice(0, 12)}:`;
  const rateLimiter = redis
    ? createRedisRateLimiter(redis, { ...config.ingestRate, prefix: `${namespace}rl:` })
    : createMemoryRateLimiter(config.ingestRate);
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
  // On PostgreSQL each flush goes as one pipeline on connections of its own (src/db/wire).
  const writer = db.embedded
    ? undefined
    : createWriterPool(writerOptions(db.sql, WRITER_SESSION), WRITER_STATEMENTS, {
        onOpenError: (err) =>
          log.warn('the flush writer could not connect: flushes go through the postgres client meanwhile', { err }),
      });
  const store = createEventStore(db.sql, { owner: processId, embedded: db.embedded, writer });
  await store.ensurePartition(new Date());
  const stopFolds = await keepFoldJournal(store, { onlyProcess: !config.redisUrl, log });
  let cluster: Cluster | null = null;
  const actors = createActorRegistry({
    store,
    onDrop: (projectId) => cluster?.dropped(projectId),
    // Two flushes of a project in flight: the second waits in the writer's socket while the first runs, so
    // the backend never idles between them; more only made concurrent flushes contend (sql/README.md).
    maxConcurrentFlushes: db.embedded ? 1 : 2,
    checkpointMs: config.checkpointMs,
    onError: (err, during) =>
      during === 'checkpoint'
        ? log.warn('could not apply sessions and visitors (kept for the next checkpoint)', { err })
        : log.warn("could not read back live sessions and realtime: the project's visitors open new sessions", { err }),
    // Log lines committed here reach long-polls, SSE and WebSocket subscribers held by other processes.
    // Without Redis there are none: the in-memory bus would encode every line for nobody.
    onLogs: config.redisUrl
      ? (projectId, lines) => void bus.publish(`${namespace}logs`, { from: processId, projectId, lines })
      : undefined,
  });
  cluster = createCluster({ actors, leases, bus, prefix: namespace, log, leaseMs: LEASE_TTL_MS });
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
    credentials,
    actors,
    cluster,
    rateLimiter,
    bus,
    overviews: new TtlCache(10_000, OVERVIEW_CACHE_MS),
    sqlRoute: createSqlRuntime({ sql: db.sql, databaseUrl: config.databaseUrl, config: config.sql, log }),
    startedAt: new Date(),
    live: new LiveHub({
      logs: (id) => actors.logs(id),
      snapshot: async (id) => (await (await cluster.project(id)).realtime(0)).snapshot,
    }),
    lookups: { geo, isDatacenterIp: (ip) => datacenter.isDatacenterIp(ip) },
  };
  const routes = allRoutes();
  const server = await startHttpServer({
    host: config.host,
    port: config.port,
    routes,
    sockets: [liveRoute(services)],
    execute: createPipeline(services),
    dashboardOrigin: config.dashboardOrigin,
    trustProxy: config.trustProxy,
    log,
  });

  services.live.attach(server.publisher);

  let closing: Promise<void> | null = null;
  return {
    port: server.port,
    services,
    close: () =>
      (closing ??= (async () => {
        services.live.stop();
        unsubscribeLogs();
        await server.close();
        await cluster.stop(); // flushes every actor, then frees the projects' leases
        await writer?.close();
        await services.sqlRoute.close();
        stopFolds();
        projects.stop();
        await rateLimiter.close();
        await bus.close();
        redis?.disconnect();
        await db.close();
      })()),
  };
}

/** This process's part in the fold journal: a heartbeat, and the journal rows of processes that stopped
 *  without applying theirs. Alone (no Redis), every other owner's rows are applied at start; beside other
 *  processes, those of owners silent for a minute are, at start and every 30 seconds. */
async function keepFoldJournal(store: EventStore, opts: { onlyProcess: boolean; log: Logger }): Promise<() => void> {
  const recover = async () => {
    const applied = await store.recover({ onlyProcess: opts.onlyProcess });
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

// Wires Loupe together: database, migrations, project directory, credentials, routes, HTTP server.
// Returns a handle whose close() is the graceful shutdown (stop accepting, drain, close the database).
import { LiveHub } from '../actors/live-hub.ts';
import { createActorRegistry } from '../actors/registry.ts';
import type { Config } from './config.ts';
import { createMemoryBus, createRedisBus, openRedis } from './bus.ts';
import { readLogsMessage } from './bus-messages.ts';
import { createEventStore } from './db/event-store.ts';
import { openDatacenter } from './ingest/datacenter.ts';
import { openGeo } from './ingest/geo.ts';
import { createMemoryRateLimiter, createRedisRateLimiter } from './ingest/rate-limit.ts';
import { createCredentialResolver } from './auth/credentials.ts';
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
import { createPipeline } from './routes/pipeline.ts';
import type { Services } from './services.ts';

export type Loupe = { port: number; services: Services; close: () => Promise<void> };

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
  const redis = config.redisUrl ? openRedis(config.redisUrl, { name: 'loupe', onError: (err) => log.warn('redis error', { err }) }) : null;
  const rateLimiter = redis ? createRedisRateLimiter(redis, config.ingestRate) : createMemoryRateLimiter(config.ingestRate);
  const bus = config.redisUrl ? createRedisBus(config.redisUrl) : createMemoryBus();
  const store = createEventStore(db.sql, log);
  await store.ensurePartition(new Date());
  // Log lines committed here reach long-polls, SSE and WebSocket subscribers held by other processes.
  const processId = Math.random().toString(36).slice(2);
  const actors = createActorRegistry({
    store,
    concurrentFlushes: db.embedded ? 1 : 3,
    onLogs: (projectId, lines) => void bus.publish('logs', { from: processId, projectId, lines }),
  });
  const unsubscribeLogs = bus.subscribe('logs', (message) => {
    const m = readLogsMessage(message);
    if (!m || m.from === processId) return;
    const actor = actors.peek(m.projectId);
    for (const line of m.lines) actor?.logs.append(line);
  });
  const services: Services = {
    config, sql: db.sql, log, projects, credentials, actors, rateLimiter, bus, startedAt: new Date(),
    live: new LiveHub((id) => actors.get(id)),
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
        await actors.stop();
        projects.stop();
        await rateLimiter.close();
        await bus.close();
        redis?.disconnect();
        await db.close();
      })()),
  };
}

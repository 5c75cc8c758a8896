// The services a route handler may use, wired once in src/app.ts and handed to every handler.
import type { Sql } from 'postgres';
import type { LiveHub } from '../actors/live-hub.ts';
import type { ActorRegistry } from '../actors/registry.ts';
import type { Bus } from './bus.ts';
import type { Cluster } from './cluster.ts';
import type { Lookups } from './ingest/enrich.ts';
import type { RateLimiter } from './ingest/rate-limit.ts';
import type { CredentialResolver } from './auth/credentials.ts';
import type { TtlCache } from './auth/ttl-cache.ts';
import type { Config } from './config.ts';
import type { ProjectDirectory } from './db/project-directory.ts';
import type { Logger } from './log.ts';
import type { SqlRuntime } from './query/sql/runtime.ts';

export type Services = {
  config: Config;
  sql: Sql;
  log: Logger;
  projects: ProjectDirectory;
  credentials: CredentialResolver;
  actors: ActorRegistry;
  /** Where each project's actor lives: here, or in the process holding its lease. */
  cluster: Cluster;
  lookups: Lookups;
  rateLimiter: RateLimiter;
  bus: Bus;
  live: LiveHub;
  /** Each project's overview answer for ten seconds (routes/overview.ts). */
  overviews: TtlCache<string, Record<string, unknown>>;
  /** The SQL route's connections, concurrency and caps. */
  sqlRoute: SqlRuntime;
  startedAt: Date;
};

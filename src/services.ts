// The services a route handler may use, wired once in src/app.ts and handed to every handler.
import type { Sql } from 'postgres';
import type { LiveHub } from '../actors/live-hub.ts';
import type { ActorRegistry } from '../actors/registry.ts';
import type { Bus } from './bus.ts';
import type { Cluster } from './cluster.ts';
import type { Lookups } from './ingest/enrich.ts';
import type { RateLimiter } from './ingest/rate-limit.ts';
import type { CredentialResolver } from './auth/credentials.ts';
import type { SignInProvider } from './auth/oidc.ts';
import type { TtlCache } from './auth/ttl-cache.ts';
import type { Config } from './config.ts';
import type { ProjectDirectory } from './db/project-directory.ts';
import type { LogFeeds } from './live/log-feeds.ts';
import type { Logger } from './log.ts';
import type { ProjectHealth } from './project-health.ts';
import type { Gate } from './gate.ts';
import type { PagedRead } from './db/held-cursor.ts';
import type { SqlRuntime } from './query/sql/runtime.ts';

export type Services = {
  config: Config;
  sql: Sql;
  log: Logger;
  projects: ProjectDirectory;
  credentials: CredentialResolver;
  /** The identity provider browser sign-in goes through; null when none is configured (tokens only). */
  signIn: SignInProvider | null;
  actors: ActorRegistry;
  /** Where each project's actor lives: here, or in the process holding its lease. */
  cluster: Cluster;
  lookups: Lookups;
  /** Ingest with a public key, per key and client IP. */
  rateLimiter: RateLimiter;
  /** Ingest with a secret key, per project and client IP (config.ingestSecretRate). */
  secretRateLimiter: RateLimiter;
  /** Reads without a credential, per client IP (config.publicReadRate). */
  readRateLimiter: RateLimiter;
  bus: Bus;
  live: LiveHub;
  /** SSE and long-poll subscribers of the log stream, fed from each project's ring (src/live). */
  feeds: LogFeeds;
  /** Each project's overview answer for ten seconds (routes/overview.ts). */
  overviews: TtlCache<string, Record<string, unknown>>;
  /** The SQL route's connections, concurrency and caps. */
  sqlRoute: SqlRuntime;
  startedAt: Date;
  /** Projects whose checkpoints, recovery or jobs keep failing (reported in /v2/health). */
  health: ProjectHealth;
  /** Slots for exports and long-range reads (routes/heavy-reads.ts). */
  heavyReads: Gate;
  /** Long results (exports) a page at a time, leaving the database to others between pages. */
  pagedRead: PagedRead;
};

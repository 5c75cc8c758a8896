// The SQL route's share of the server: where each project's queries run (the project's restricted pool
// on PostgreSQL, the one session embedded), how many run at once, and the caps on their answers.
import type { Sql } from 'postgres';
import type { Config } from '../../config.ts';
import { createSqlPools } from '../../db/sql-pools.ts';
import type { Logger } from '../../log.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import type { SqlLimits, SqlTarget } from './run.ts';

const MiB = 1024 * 1024;

export type SqlRuntime = {
  target: (projectId: string) => Promise<SqlTarget>;
  limiter: Limiter;
  /** The plain JSON answer's caps (past them: 400 SQL_TOO_LARGE), and an export's (past them it ends). */
  limits: { answer: SqlLimits; export: SqlLimits };
  close: () => Promise<void>;
};

export function createSqlRuntime(opts: {
  sql: Sql;
  databaseUrl: string | undefined;
  config: Config['sql'];
  log: Logger;
}): SqlRuntime {
  const answer = { rows: 10_000, bytes: 16 * MiB };
  if (!opts.databaseUrl) {
    // Embedded rows are read whole before the answer is written (the session is everyone's), so an
    // export's bytes are capped lower.
    return {
      target: async (projectId) => ({
        kind: 'embedded',
        sql: opts.sql,
        projectId,
        maxCost: opts.config.embeddedMaxCost,
      }),
      limiter: createLimiter(1, 16),
      limits: { answer, export: { rows: 1_000_000, bytes: 64 * MiB } },
      close: async () => {},
    };
  }
  const pools = createSqlPools({
    sql: opts.sql,
    databaseUrl: opts.databaseUrl,
    log: opts.log,
    perPool: opts.config.concurrency,
  });
  return {
    target: async (projectId) => ({
      kind: 'postgres',
      pool: await pools.forProject(projectId),
      timeoutMs: opts.config.timeoutMs,
    }),
    limiter: createLimiter(opts.config.concurrency, opts.config.concurrency * 4),
    limits: { answer, export: { rows: 1_000_000, bytes: 512 * MiB } },
    close: pools.close,
  };
}

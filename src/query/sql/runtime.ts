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
    const analyzed = freshStatistics(opts.sql);
    return {
      target: async (projectId) => {
        await analyzed();
        return { kind: 'embedded', sql: opts.sql, projectId, maxCost: opts.config.embeddedMaxCost };
      },
      // One query at a time, and after each the session rests as long as the query held it.
      limiter: createLimiter(1, 8, (heldMs) => heldMs),
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

/** The embedded database has no autovacuum, so its planner would judge a query by tables it never
 *  measured (a 5-way cross join priced at 85): before a query, the analyst views' tables are analyzed
 *  when last done over five minutes ago, so the cost gate of src/query/sql/run.ts sees real row counts. */
function freshStatistics(sql: Sql): () => Promise<void> {
  let last = 0;
  let running: Promise<void> | null = null;
  return () => {
    if (Date.now() - last < 5 * 60_000) return Promise.resolve();
    return (running ??= sql`analyze events, sessions, visitors, issues, speed_samples, annotations`
      .then(() => void (last = Date.now()))
      .finally(() => (running = null)));
  };
}

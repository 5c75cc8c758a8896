// One builder a project at a time, whichever process runs it: the background builder's build of a day
// (builder.ts) and its fold of a day's marks (fold.ts) hold the project for their whole length, each of
// their transactions holding the project's row as every flush does.
import type { ReservedSql, Sql, TransactionSql } from 'postgres';
import { query } from '../../db/queries.ts';

const LOCK_CLASS = 7_370_007; // as build.ts: pg_advisory_xact_lock(class, hash(project))

/** A transaction of a held project: `false` when the project is gone, `null` when another builder holds it. */
export type Step = <T>(run: (tx: Sql | TransactionSql) => Promise<T>) => Promise<T | false | null>;

/**
 * Runs `work` holding the project: by a session advisory lock on a connection of its own, or, on a client
 * of one connection (embedded, where nothing else builds meanwhile but a whole-transaction `ensureRollups`),
 * by a transaction lock in each step. 'busy' when another builder holds it. Each `step` is a transaction
 * (`isolation`, if given) that first takes the project's row FOR KEY SHARE, as every flush does
 * (lock_project.sql).
 */
export async function holdProject<T>(
  sql: Sql,
  projectId: string,
  work: (step: Step) => Promise<T>,
  isolation?: 'repeatable read',
): Promise<T | 'busy'> {
  const conn = (sql.options.max ?? 10) > 1 ? await sql.reserve() : null;
  try {
    if (conn) {
      const [lock] = await conn<{ held: boolean }[]>`
        select pg_try_advisory_lock(${LOCK_CLASS}, hashtext(${projectId})) as held`;
      if (!lock!.held) return 'busy';
    }
    try {
      const step: Step = (run) =>
        transaction(
          conn ?? sql,
          async (tx) => {
            if ((await query(tx, 'lock_project', [projectId])).length === 0) return false;
            if (!conn) {
              const [lock] = await tx<{ held: boolean }[]>`
                select pg_try_advisory_xact_lock(${LOCK_CLASS}, hashtext(${projectId})) as held`;
              if (!lock!.held) return null;
            }
            return run(tx);
          },
          isolation,
        );
      return await work(step);
    } finally {
      if (conn) await conn`select pg_advisory_unlock(${LOCK_CLASS}, hashtext(${projectId}))`;
    }
  } finally {
    conn?.release();
  }
}

/** `run` in a transaction: on a reserved connection (which has no `begin` of its own), or the client's. */
async function transaction<T>(
  db: Sql | ReservedSql,
  run: (tx: Sql | TransactionSql) => Promise<T>,
  isolation?: string,
): Promise<T> {
  if (!('release' in db))
    return (await (isolation ? db.begin(`isolation level ${isolation}`, run) : db.begin(run))) as T;
  await db.unsafe(isolation ? `begin isolation level ${isolation}` : 'begin');
  try {
    const out = await run(db);
    await db`commit`;
    return out;
  } catch (err) {
    await db`rollback`.catch(() => {});
    throw err;
  }
}

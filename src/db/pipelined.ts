// A transaction whose BEGIN and COMMIT travel with the statements around them. `sql.begin` waits for
// BEGIN's answer before it sends the first statement, and for the last statement's answer before it sends
// COMMIT: two round trips of their own per transaction, each one a wake-up of the backend and of this
// process (on a busy machine, a good part of a small flush's cost). Here BEGIN goes out in the same write
// as the first statements, and the caller sends COMMIT together with its last statements by calling
// `commit()` as it dispatches them. When one of those fails, PostgreSQL answers the COMMIT with ROLLBACK:
// the failed statement's error is what the caller sees, and nothing of the transaction is kept.
import type { ReservedSql, Sql } from 'postgres';

export type Commit = () => Promise<void>;

export async function pipelinedTransaction<T>(
  sql: Sql,
  run: (tx: ReservedSql, commit: Commit) => Promise<T>,
): Promise<T> {
  const tx = await sql.reserve();
  const begun = tx`begin`.execute();
  begun.catch(() => {}); // awaited below; the statements sent behind it fail with it
  let committed: Promise<void> | null = null;
  // COMMIT must reach the connection after every statement dispatched before commit() was called. A
  // statement reaches it some microtasks after it is called (more when awaited through an async helper),
  // so COMMIT is dispatched from the check phase, once all of those have run: still in the same write
  // (client.ts flushes its corked writes in a check-phase callback registered earlier, which runs after).
  const commit: Commit = () =>
    (committed ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => tx`commit`.execute())
      .then((r) => {
        if (r.command !== 'COMMIT') throw new Error(`the transaction was not committed (${r.command})`);
      }));
  try {
    const result = await run(tx, commit);
    await begun;
    await commit();
    return result;
  } catch (err) {
    // Sent already: it rolled back (a statement failed) or its own error is the one being thrown.
    const sent = committed as Promise<void> | null; // assigned in commit(), which the compiler does not follow
    if (sent) await sent.catch(() => {});
    else await tx`rollback`.catch(() => {});
    throw err;
  } finally {
    tx.release();
  }
}

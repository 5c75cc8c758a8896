// The `postgres` client's executor of a flush plan (flush-plan.ts): its steps in one transaction, every
// statement sent before any answer, BEGIN with the first and COMMIT with the last (pipelined.ts). On
// PostgreSQL the events and their keys go by COPY FROM STDIN, the same text that insert_events.sql takes on
// PGlite, whose socket has no COPY. Used on PGlite, and on PostgreSQL when the flush writer is not
// (wire/flush-executor.ts is the other executor of the same plan).
import type { Writable } from 'node:stream';
import type { ReservedSql, Sql } from 'postgres';
import { EVENTS_COPY, KEYS_COPY, type Rows, type Step } from './flush-plan.ts';
import { pipelinedTransaction } from './pipelined.ts';
import { query } from './queries.ts';

/** Runs a plan's steps in one transaction, each statement sent before any answer and COMMIT with the last;
 *  answers each step's rows. A failed step fails the transaction: nothing of it is kept. With `copy`
 *  (PostgreSQL) the events and their keys go by COPY FROM STDIN, the same text the statement takes (PGlite's
 *  socket has no COPY): COPY runs alone on a connection, so the steps before it go with BEGIN, and the
 *  steps after it with COMMIT. */
export function runFlush(sql: Sql, steps: readonly Step[], copy: boolean): Promise<Rows[]> {
  return pipelinedTransaction(sql, async (tx, commit) => {
    // Ingest statements' plans never depend on their parameters: planned once per connection (reads are
    // planned for theirs, see client.ts).
    const generic = tx`set local plan_cache_mode = force_generic_plan`.execute();
    const send = (from: number, to?: number) =>
      Promise.all(steps.slice(from, to).map((s) => query<Record<string, unknown>>(tx, s.statement, s.params)));
    const at = copy ? steps.findIndex((s) => s.copy) : -1;
    let head: Promise<Rows[]> = Promise.resolve([]);
    if (at >= 0) {
      head = send(0, at);
      head.catch(() => {}); // awaited below
      const { keys, events } = steps[at]!.copy!;
      try {
        await copyIn(tx, KEYS_COPY, keys());
        await copyIn(tx, EVENTS_COPY, events);
      } catch (err) {
        await Promise.all([generic, head]); // a failed hold is the error to answer, not the COPY it aborted
        throw err;
      }
    }
    const tail = send(at + 1);
    const committed = commit();
    committed.catch(() => {}); // awaited below: a failed statement's own error is the one to answer
    const [, before, after] = await Promise.all([generic, head, tail]);
    await committed;
    return at >= 0 ? [...before, [], ...after] : after;
  });
}

/** Sends `rows` (lines without the last line break) to a COPY FROM STDIN and waits for its answer.
 *  postgres.js settles nothing when a COPY fails after its data is all sent (porsager/postgres#1173: a key
 *  already stored, a value the column refuses): the stream neither finishes nor fails. So a statement is
 *  sent right behind the data, once the client has let go of the stream: it answers after the COPY, and
 *  fails with 25P02 (current transaction is aborted) when the COPY did. */
async function copyIn(tx: ReservedSql, statement: string, rows: string): Promise<void> {
  const writable = (await tx.unsafe(statement).writable()) as Writable & { _final: Writable['_final'] };
  const finished = new Promise<void>((resolve, reject) => {
    writable.once('error', reject);
    writable.once('finish', resolve);
  });
  finished.catch(() => {}); // awaited below
  const released = new Promise<void>((resolve) => {
    const final = writable._final;
    writable._final = (callback) => (final!.call(writable, callback), resolve());
  });
  writable.end(`${rows}\n`);
  await Promise.race([released, finished]);
  await Promise.all([finished, tx`select 1`.execute()]);
}

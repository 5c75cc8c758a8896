// The pipelined transaction (src/db/pipelined.ts): BEGIN and COMMIT travel with the statements, yet every
// statement runs inside the one transaction however it was dispatched (directly, through `query()`, or
// awaited inside an async helper, which reaches the connection microtasks later than COMMIT is called),
// and a failure keeps nothing.
import t from 'tap';
import { pipelinedTransaction } from '../../src/db/pipelined.ts';
import { query } from '../../src/db/queries.ts';
import { createProject } from '../../src/db/projects.ts';
import { openMigratedDatabase } from '../support/database.ts';

const db = await openMigratedDatabase(t);
const { sql } = db;
await sql`create table pipelined_probe (n int primary key, xact text not null)`;
const xact = 'pg_current_xact_id()::text';

t.test('every statement sent before COMMIT runs in the transaction, and it commits', async (t) => {
  const viaHelper = async (n: number) => {
    await Promise.resolve(); // a helper that awaits something first reaches the connection later still
    return await sql.unsafe(`insert into pipelined_probe values ($1, ${xact}) returning xact`, [n]);
  };
  const seen = await pipelinedTransaction(sql, async (tx, commit) => {
    const [first] = await Promise.all([tx.unsafe(`insert into pipelined_probe values (1, ${xact}) returning xact`)]);
    const rows = await Promise.all([
      tx.unsafe(`insert into pipelined_probe values (2, ${xact}) returning xact`),
      (async () => await tx.unsafe(`insert into pipelined_probe values (3, ${xact}) returning xact`))(),
      (async () => {
        await Promise.resolve();
        await Promise.resolve();
        return await tx.unsafe(`insert into pipelined_probe values (4, ${xact}) returning xact`);
      })(),
      commit(),
    ]);
    return [first, ...rows.slice(0, 3)].map((r) => (r as unknown as { xact: string }[])[0]!.xact);
  });
  t.equal(new Set(seen).size, 1, `one transaction id for all four (${seen.join(', ')})`);
  const stored = await sql<{ n: number; xact: string }[]>`select n, xact from pipelined_probe order by n`;
  t.same(
    stored.map((r) => r.n),
    [1, 2, 3, 4],
    'all four committed',
  );
  // The pool's own connection, outside the transaction, gets another id.
  const [outside] = await viaHelper(5);
  t.not(outside!.xact, seen[0], 'a statement outside runs in its own transaction');
  await sql`delete from pipelined_probe`;
});

t.test('a failing statement sent with COMMIT keeps nothing, and its own error is the one thrown', async (t) => {
  await t.rejects(
    pipelinedTransaction(sql, async (tx, commit) => {
      await tx.unsafe(`insert into pipelined_probe values (10, ${xact})`);
      await Promise.all([
        tx.unsafe(`insert into pipelined_probe values (11, ${xact})`),
        tx.unsafe(`insert into pipelined_probe values (10, ${xact})`), // duplicate key
        commit(),
      ]);
    }),
    { code: '23505' },
  );
  t.same(await sql`select n from pipelined_probe`, [], 'rolled back: neither row is there');
});

t.test('an error thrown before commit() rolls back, and the connection is clean for the next one', async (t) => {
  await t.rejects(
    pipelinedTransaction(sql, async (tx) => {
      await tx.unsafe(`insert into pipelined_probe values (20, ${xact})`);
      throw new Error('changed my mind');
    }),
    { message: 'changed my mind' },
  );
  t.same(await sql`select n from pipelined_probe`, [], 'rolled back');
  await createProject(sql, { id: 'pl', name: 'pl', visibility: 'private' });
  const held = await pipelinedTransaction(sql, async (tx, commit) => {
    const [rows] = await Promise.all([query(tx, 'lock_project', ['pl']), commit()]);
    return rows.length;
  });
  t.equal(held, 1, 'a statement from sql/queries runs and commits on a released connection');
});

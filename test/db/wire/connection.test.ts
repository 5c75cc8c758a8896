// The flush writer's connection and pool against a real PostgreSQL server (a private one, so COPY is real
// whichever database the rest of the tests use): a pipeline is one transaction, COPY data travels in it,
// pipelines in flight are answered in order, and a lost connection fails what was in flight and is opened
// again by the pool.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import postgres from 'postgres';
import { WireConnection, type WireOptions } from '../../../src/db/wire/connection.ts';
import { createWriterPool, writerOptions, WriterUnsupported } from '../../../src/db/wire/pool.ts';
import { startPrivatePostgres } from '../../support/private-postgres.ts';

const pg = await startPrivatePostgres([]);
t.teardown(pg.stop);
const url = `postgres://postgres@127.0.0.1:${pg.port}/postgres`;
const admin = postgres(url, { max: 1, onnotice: () => {} });
t.teardown(() => admin.end());
await admin`create table items (id int primary key, note text)`;

const options: WireOptions = writerOptions(admin as never, { application_name: 'wire-test' });
const statements = {
  echo: 'select $1::text as a, $2::text as b, $3::text as c',
  add: 'insert into items (id, note) values ($1, $2)',
  count: 'select count(*)::text from items',
  copy: 'copy items (id, note) from stdin',
  clear: 'delete from items',
  pid: 'select pg_backend_pid()::text',
  sleep: 'select pg_sleep($1::float8)',
};
const conn = await WireConnection.open(options, statements);
t.teardown(() => conn.close());
const count = async () => Number((await conn.run([{ statement: 'count' }]))[0]!.rows[0]![0]);

t.test('parameters and rows in text form, a command tag and the columns per statement', async (t) => {
  const [echo, add] = await conn.run([
    { statement: 'echo', params: ['Ünïcödé ✓', null, ''] },
    { statement: 'add', params: ['1', 'one'] },
  ]);
  const text = (name: string) => ({ name, type: 25 });
  t.same(
    echo,
    { command: 'SELECT 1', rows: [['Ünïcödé ✓', null, '']], columns: [text('a'), text('b'), text('c')] },
    'UTF-8, null and the empty string kept apart; the columns as described when prepared',
  );
  t.same(add, { command: 'INSERT 0 1', rows: [], columns: [] });
  await conn.run([{ statement: 'clear' }]);
});

t.test('a pipeline is one transaction: an error anywhere keeps nothing, and the connection goes on', async (t) => {
  await t.rejects(
    conn.run([
      { statement: 'add', params: ['1', 'kept?'] },
      { statement: 'add', params: ['2', 'kept?'] },
      { statement: 'add', params: ['1', 'duplicate'] },
      { statement: 'add', params: ['3', 'never run'] },
    ]),
    { code: '23505', constraint_name: 'items_pkey' },
    "the server's error, with its constraint",
  );
  t.equal(await count(), 0, 'the statements before the error were rolled back');
  t.notOk(conn.closed);
});

t.test('COPY data travels inside the pipeline, between statements', async (t) => {
  const [added, copied, counted] = await conn.run([
    { statement: 'add', params: ['1', 'before'] },
    { statement: 'copy', copy: '2\ttab\\there\n3\t\\N\n4\tÜ\n' },
    { statement: 'count' },
  ]);
  t.equal(added!.command, 'INSERT 0 1');
  t.equal(copied!.command, 'COPY 3');
  t.same(counted!.rows, [['4']], 'the statement after the COPY sees its rows');
  t.same(await admin`select id, note from items order by id`.then((r) => r.map((x) => [x.id, x.note])), [
    [1, 'before'],
    [2, 'tab\there'],
    [3, null],
    [4, 'Ü'],
  ]);
  await conn.run([{ statement: 'clear' }]);
});

t.test('a COPY that fails keeps nothing; its remaining data is discarded, not read as statements', async (t) => {
  const data = Buffer.from(Array.from({ length: 5_000 }, (_, i) => `${i === 10 ? 1 : i + 1}\tx\n`).join(''));
  await t.rejects(
    conn.run([
      { statement: 'add', params: ['9999', 'first'] },
      { statement: 'copy', copy: data },
      { statement: 'add', params: ['7777', 'after'] },
    ]),
    { code: '23505' },
  );
  t.equal(await count(), 0);
  await t.rejects(
    conn.run([{ statement: 'copy', copy: '1\tnot a number\t3\n' }]),
    { code: '22P04' },
    "malformed data: the server's error",
  );
  t.same((await conn.run([{ statement: 'echo', params: ['still', 'in', 'step'] }]))[0]!.rows, [
    ['still', 'in', 'step'],
  ]);
});

t.test('pipelines in flight are answered in order, each with its own results, and commit in that order', async (t) => {
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      conn
        .run([
          { statement: 'add', params: [String(i), `n${i}`] },
          { statement: 'echo', params: [String(i), null, null] },
          ...(i % 7 === 3 ? [{ statement: 'add', params: ['0', 'duplicate of the first'] }] : []),
        ])
        .then(
          (r) => r[1]!.rows[0]![0],
          (e: { code: string }) => e.code,
        ),
    ),
  );
  t.same(
    answers,
    Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? '23505' : String(i))),
    'failures stay with their own pipeline',
  );
  const stored = await admin`select id from items order by id`;
  t.same(
    stored.map((r) => r.id),
    Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 7 !== 3),
  );
  await conn.run([{ statement: 'clear' }]);
});

t.test('a large COPY goes through whole', async (t) => {
  const rows = 400_000;
  const data = Buffer.from(Array.from({ length: rows }, (_, i) => `${i}\t${'x'.repeat(40)}\n`).join(''));
  const [copied] = await conn.run([{ statement: 'copy', copy: data }]);
  t.equal(copied!.command, `COPY ${rows}`, `${(data.length / 1e6).toFixed(1)} MB in one pipeline`);
  await conn.run([{ statement: 'clear' }]);
});

t.test('a lost connection fails what was in flight; the pool opens a new one for the next pipeline', async (t) => {
  const pool = createWriterPool(options, statements, { size: 2 });
  t.teardown(() => pool.close());
  const pid = (await pool.run('project-a', [{ statement: 'pid' }]))[0]!.rows[0]![0]!;
  t.equal((await pool.run('project-a', [{ statement: 'pid' }]))[0]!.rows[0]![0], pid, 'a key keeps its connection');
  // Both are expected to fail, and can fail while the terminate below is still being answered: their
  // checks are attached now, so neither rejection goes unhandled meanwhile.
  const inFlight = t.rejects(
    pool.run('project-a', [{ statement: 'sleep', params: ['30'] }]),
    { code: '57P01' },
    "the pipeline in flight fails with the server's reason (admin_shutdown)",
  );
  const behind = t.rejects(
    pool.run('project-a', [{ statement: 'echo', params: ['x', null, null] }]),
    { code: 'CONNECTION_CLOSED', unsent: false },
    'the one queued behind it fails with the connection (it was sent: not a fallback case)',
  );
  for (let i = 0; i < 200; i++) {
    // until the backend is inside the sleep
    const [row] = await admin`select wait_event from pg_stat_activity where pid = ${Number(pid)}`;
    if (row?.wait_event === 'PgSleep') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  await admin`select pg_terminate_backend(${Number(pid)})`;
  await inFlight;
  await behind;
  let next: string | null | undefined;
  for (let i = 0; i < 50 && (next === undefined || next === pid); i++) {
    // The pool sees the connection closed once the socket says so; until then a run may still fail.
    next = await pool.run('project-a', [{ statement: 'pid' }]).then(
      (r) => r[0]!.rows[0]![0],
      () => undefined,
    );
    if (next === undefined) await new Promise((r) => setImmediate(r));
  }
  t.ok(next && next !== pid, 'the next pipeline runs in a new session');
  await pool.close();
  await t.rejects(pool.run('project-a', [{ statement: 'pid' }]), /closed/, 'nothing after close()');
});

t.test("nothing keeps a pipeline's results once it is answered", async (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let results: object | null = await conn.run([{ statement: 'echo', params: ['a', 'b', 'c'] }]);
  const ref = new WeakRef(results);
  results = null;
  for (let i = 0; i < 5; i++) await conn.run([{ statement: 'echo', params: [String(i), null, null] }]);
  await new Promise((r) => setImmediate(r));
  gc();
  t.equal(ref.deref(), undefined, 'collected: the connection holds no answered pipeline (an earlier drain chain did)');
});

t.test('close() waits for the pipelines in flight', async (t) => {
  const c = await WireConnection.open(options, statements);
  const pending = c.run([{ statement: 'add', params: ['42', 'last'] }]);
  await c.close();
  t.same((await pending)[0]!.command, 'INSERT 0 1');
  t.ok(c.closed);
  await t.rejects(c.run([{ statement: 'count' }]), { code: 'CONNECTION_CLOSED' });
  t.equal(await count(), 1, 'committed before the session ended');
});

t.test('text is UTF-8 whatever encoding the database defaults to', async (t) => {
  await admin.unsafe('create database latin');
  await admin.unsafe(`alter database latin set client_encoding = 'LATIN1'`);
  const client = postgres(`postgres://postgres@127.0.0.1:${pg.port}/latin`, { max: 1, onnotice: () => {} });
  t.teardown(() => client.end());
  await client`create table t (v text)`;
  const latin = await WireConnection.open(
    { ...options, database: 'latin' },
    { add: 'insert into t values ($1)', read: 'select v from t' },
  );
  t.teardown(() => latin.close());
  const [, read] = await latin.run([{ statement: 'add', params: ['Ünï ✓'] }, { statement: 'read' }]);
  t.same(read!.rows, [['Ünï ✓']], 'read back as written');
  t.same(
    (await client`select v from t`).map((r) => r.v),
    ['Ünï ✓'],
    'and stored as the client reads it (a LATIN1 session garbled it)',
  );
});

t.test("the client's settings are inherited, unset ones left out", async (t) => {
  const o = writerOptions(admin as never, { application_name: 'wire-test' });
  t.equal(o.params.application_name, 'wire-test', "the writer's own win");
  t.notOk(Object.values(o.params).includes('undefined'), 'no setting sent as the text "undefined"');
});

t.test("a statement the server cannot prepare fails the connection's opening", async (t) => {
  await t.rejects(WireConnection.open(options, { bad: 'select * from no_such_table' }), { code: '42P01' });
});

t.test('several hosts in the URL: refused with the reason (the writer connects to one)', async (t) => {
  const several = postgres('postgres://postgres@db1.example:5432,db2.example:5433/postgres', { max: 1 });
  const caught = (() => {
    try {
      writerOptions(several, {});
    } catch (err) {
      return err;
    }
  })();
  t.ok(caught instanceof WriterUnsupported, 'a WriterUnsupported, which FLUSH_WRITER=auto answers with the client');
  t.throws(
    () => writerOptions(several, {}),
    /connects to one host, and the database URL names 2 \(db1.example,db2.example\)/,
  );
  await several.end();
});

// The server process as an operator runs it: the embedded default prints an admin token and the demo
// project's keys on first start only, and SIGTERM drains in-flight requests and flushes and checkpoints
// every project's actor before a clean exit.
import t from 'tap';
import { createTestDatabase } from '../support/database.ts';
import { startServerProcess } from '../support/process.ts';

t.test('first start of the embedded default prints credentials once; they work', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const env = { databaseUrl: undefined, dataDir: db.dataDir, extra: { LOG_LEVEL: 'info' } };
  const first = await startServerProcess(env);
  await new Promise((r) => setTimeout(r, 300));
  const out = first.stdout();
  const token = /admin token\s+(at_live_\S+)/.exec(out)?.[1];
  t.ok(token, 'an admin token is printed');
  t.match(out, /demo project\s+demo/);
  t.match(out, /public key\s+pk_/);
  t.match(out, /secret key\s+sk_/);
  t.match(out, /"msg":"loupe listening"/, 'structured start-up line');
  const projects = await (
    await fetch(`${first.url}/v2/projects`, { headers: { authorization: `Bearer ${token}` } })
  ).json();
  t.same(
    projects.data.map((p: { id: string }) => p.id),
    ['demo'],
  );
  await first.kill('SIGTERM');
  t.equal(await first.exited, 0, 'a clean exit on SIGTERM');

  const second = await startServerProcess(env);
  await new Promise((r) => setTimeout(r, 300));
  t.notMatch(second.stdout(), /admin token/, 'not printed again');
  await second.kill('SIGTERM');
});

t.test('SIGTERM: in-flight ingest requests are answered, and every actor is flushed and checkpointed', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const { prepareProject } = await import('../support/process.ts');
  const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
  const projects = [await prepareProject(env, 'site'), await prepareProject(env, 'shop')];
  // Checkpoints a minute apart: whatever the sessions and visitors hold at the end, the shutdown wrote.
  const server = await startServerProcess({ ...env, extra: { CHECKPOINT_MS: '60000' } });
  const send = (c: number, tag: string) =>
    fetch(`${server.url}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${projects[c % 2]!.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        events: Array.from({ length: 50 }, (_, j) => ({ id: `g${tag}-${j}`, name: 'pageview', visitor: `v${j}` })),
      }),
    }).then(
      (r) => r.status,
      () => 0,
    );
  // Twenty clients send batch after batch until one is refused; SIGTERM goes out once the server has
  // answered a first batch, so requests are in flight whatever the machine's speed (a fixed delay was too
  // short on a loaded one: nothing had arrived yet).
  let killed = false;
  const acknowledged = [0, 0];
  let answeredAfterKill = 0;
  let firstAnswer!: () => void;
  const answering = new Promise<void>((resolve) => (firstAnswer = resolve));
  const lastStatus: number[] = [];
  const client = async (c: number) => {
    for (let i = 0; i < 500; i++) {
      const status = await send(c, `${c}-${i}`);
      lastStatus[c] = status;
      if (status !== 202) return;
      acknowledged[c % 2]!++;
      if (killed) answeredAfterKill++;
      firstAnswer();
    }
  };
  const clients = Promise.all(Array.from({ length: 20 }, (_, c) => client(c)));
  await answering;
  killed = true;
  const signalled = performance.now();
  await server.kill('SIGTERM');
  const stopping = performance.now() - signalled;
  await clients;
  t.equal(await server.exited, 0, 'exited cleanly');
  t.ok(answeredAfterKill > 0, `${answeredAfterKill} requests answered 202 after SIGTERM`);
  // A request that came on a kept-alive connection after the signal was refused (503, the connection
  // closed) or found the server gone: the drain ended with the requests in flight, not after its 10 s grace.
  t.ok(
    lastStatus.every((status) => status === 503 || status === 0),
    `each client's last request refused (${[...new Set(lastStatus)].join(', ')})`,
  );
  t.ok(stopping < 5_000, `stopped ${Math.round(stopping)} ms after SIGTERM`);

  // Read as the server left it, before anything starts again (a start would apply a leftover journal).
  const { openDatabase } = await import('../../src/db/client.ts');
  const { createLogger } = await import('../../src/log.ts');
  const check = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  t.teardown(() => check.close());
  for (const [i, { id }] of projects.entries()) {
    const [events] = await check.sql<{ n: number }[]>`select count(*)::int as n from events where project_id = ${id}`;
    t.ok(
      events!.n >= acknowledged[i]! * 50,
      `${id}: ${events!.n} events stored, at least the ${acknowledged[i]! * 50} acknowledged`,
    );
    const [sessions] = await check.sql<{ pageviews: number; visitors: number }[]>`
      select coalesce(sum(pageviews), 0)::int as pageviews, count(distinct visitor_id)::int as visitors from sessions where project_id = ${id}`;
    t.same(
      sessions,
      { pageviews: events!.n, visitors: 50 },
      `${id}: the sessions hold every stored pageview, written at the shutdown`,
    );
    const [counted] = await check.sql<
      { n: number }[]
    >`select coalesce(sum(accepted), 0)::int as n from ingest_counters where project_id = ${id}`;
    t.equal(counted!.n, events!.n, `${id}: the hourly counters too`);
  }
  const [journal] = await check.sql<{ n: number }[]>`select count(*)::int as n from fold_journal`;
  t.equal(journal!.n, 0, 'no journal row left for a later start to apply');
});

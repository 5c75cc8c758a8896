// The server process as an operator runs it: the embedded default prints an admin token and the demo
// project's keys on first start only, and SIGTERM drains in-flight requests before a clean exit.
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
  const projects = await (await fetch(`${first.url}/v2/projects`, { headers: { authorization: `Bearer ${token}` } })).json();
  t.same(projects.data.map((p: { id: string }) => p.id), ['demo']);
  await first.kill('SIGTERM');
  t.equal(await first.exited, 0, 'a clean exit on SIGTERM');

  const second = await startServerProcess(env);
  await new Promise((r) => setTimeout(r, 300));
  t.notMatch(second.stdout(), /admin token/, 'not printed again');
  await second.kill('SIGTERM');
});

t.test('SIGTERM: in-flight ingest requests are answered and their events kept', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const { prepareProject } = await import('../support/process.ts');
  const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
  const project = await prepareProject(env, 'site');
  const server = await startServerProcess(env);
  const send = (tag: string) => fetch(`${server.url}/v2/ingest`, {
    method: 'POST', headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: Array.from({ length: 50 }, (_, j) => ({ id: `g${tag}-${j}`, name: 'pageview', visitor: `v${j}` })) }),
  }).then((r) => r.status, () => 0);
  // Twenty clients send batch after batch until one is refused; SIGTERM goes out once the server has
  // answered a first batch, so requests are in flight whatever the machine's speed (a fixed delay was too
  // short on a loaded one: nothing had arrived yet).
  let killed = false;
  let acknowledged = 0;
  let answeredAfterKill = 0;
  let firstAnswer!: () => void;
  const answering = new Promise<void>((resolve) => (firstAnswer = resolve));
  const client = async (c: number) => {
    for (let i = 0; i < 500; i++) {
      if ((await send(`${c}-${i}`)) !== 202) return;
      acknowledged++;
      if (killed) answeredAfterKill++;
      firstAnswer();
    }
  };
  const clients = Promise.all(Array.from({ length: 20 }, (_, c) => client(c)));
  await answering;
  killed = true;
  await server.kill('SIGTERM');
  await clients;
  t.equal(await server.exited, 0, 'exited cleanly');
  t.ok(answeredAfterKill > 0, `${answeredAfterKill} requests answered 202 after SIGTERM`);
  const again = await startServerProcess(env);
  t.teardown(() => again.kill('SIGKILL'));
  const { openDatabase } = await import('../../src/db/client.ts');
  const { createLogger } = await import('../../src/log.ts');
  await again.kill('SIGTERM');
  const check = await openDatabase({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, log: createLogger('silent'), max: 1 });
  const [{ n }] = await check.sql<{ n: number }[]>`select count(*)::int as n from events where project_id = 'site'`;
  await check.close();
  t.ok(n >= acknowledged * 50, `${n} events stored, at least the ${acknowledged * 50} acknowledged`);
});

// The README's walkthrough in its own order, as processes: a server runs, the CLI creates a project beside
// it, its new key is accepted at once, and after a restart nothing the CLI or ingest wrote is lost; `cli seed`
// beside a running server loses no acknowledged event; a second server on the same data folder or on a port
// in use exits at once with a clear message; a killed server leaves no stuck lock.
// Runs on PostgreSQL with DATABASE_URL, else on the embedded default in DATA_DIR.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { openDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase } from './support/database.ts';
import { startServerProcess, type ServerEnv } from './support/process.ts';

// Four server starts and a dozen CLI runs, each a new process: longer than the default file timeout.
t.setTimeout(600_000);
const run = promisify(execFile);
// A first start creates the database and applies every migration: on a busy machine, over a minute.
const slow = { timeoutMs: 240_000 };
const root = new URL('..', import.meta.url).pathname;
const db = await createTestDatabase();
t.teardown(() => db.drop());
const env: ServerEnv = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
const childEnv = { ...process.env, DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl ?? '', LOG_LEVEL: 'warn' };
const cli = async (...args: string[]) =>
  JSON.parse(
    (await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env: childEnv, cwd: root })).stdout,
  );

const send = async (url: string, auth: Record<string, string>, events: unknown[]) => {
  const res = await fetch(`${url}/v2/ingest`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ events }),
  });
  return { status: res.status, body: (await res.json()) as { accepted?: number; duplicates?: number } };
};
const pageview = (id: string) => ({ id, name: 'pageview', page: { url: `https://shop.example.com/${id}` } });

/** Counts as the server sees them, read through whatever the running server uses (its database). */
async function countEvents(projectId: string): Promise<number> {
  const reader = await openDatabase({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, log: createLogger('silent') });
  try {
    const [row] = await reader.sql<
      { n: number }[]
    >`select count(*)::int as n from events where project_id = ${projectId}`;
    return row!.n;
  } finally {
    await reader.close();
  }
}

t.test('server, then cli project create, then ingest with the new key, then a restart', async (t) => {
  const server = await startServerProcess(env, slow);
  const project = await cli('project', 'create', '--name', 'Lost', '--id', 'lost');
  t.match(project, { id: 'lost', publicKey: /^pk_/, secretKey: /^sk_/ });
  // At once: the project is not unknown for a refresh interval.
  const first = await send(server.url, { 'x-project-key': project.publicKey }, [pageview('walk-1')]);
  t.same(first, { status: 202, body: { accepted: 1, duplicates: 0, rejected: [] } }, 'the public key is accepted');
  const second = await send(server.url, { authorization: `Bearer ${project.secretKey}` }, [pageview('walk-2')]);
  t.equal(second.body.accepted, 1, 'the secret key too');
  await server.kill('SIGTERM');
  t.equal(await server.exited, 0);

  const again = await startServerProcess(env, slow);
  t.teardown(() => again.kill('SIGTERM'));
  const retry = await send(again.url, { authorization: `Bearer ${project.secretKey}` }, [
    pageview('walk-1'),
    pageview('walk-2'),
  ]);
  t.same(
    retry.body,
    { accepted: 0, duplicates: 2, rejected: [] },
    'after the restart: project, key and events are there',
  );
  t.equal(await countEvents('lost'), 2, 'both events are stored, once');
});

t.test('cli seed beside a running server loses no acknowledged event', async (t) => {
  const server = await startServerProcess(env, slow);
  const project = await cli('project', 'create', '--name', 'Busy', '--id', 'busy');
  const auth = { authorization: `Bearer ${project.secretKey}` };
  let acknowledged = 0;
  let seeding = true;
  const seeded = cli('seed', '--project', 'seeded', '--events', '3000', '--days', '3').finally(() => (seeding = false));
  const client = async (c: number) => {
    // Until the seed is done (bounded: at most 400 batches a client).
    for (let i = 0; i < 400 && (seeding || i < 5); i++) {
      const res = await send(server.url, auth, [pageview(`c${c}-${i}-a`), pageview(`c${c}-${i}-b`)]);
      if (res.status === 202) acknowledged += res.body.accepted ?? 0;
    }
  };
  const [report] = await Promise.all([seeded, client(0), client(1)]);
  t.ok(acknowledged > 0, `${acknowledged} events acknowledged while seeding`);
  await server.kill('SIGTERM');
  const again = await startServerProcess(env, slow);
  t.teardown(() => again.kill('SIGTERM'));
  t.equal(await countEvents('busy'), acknowledged, 'every acknowledged event survived the restart');
  t.equal(await countEvents('seeded'), report.events, 'and every seeded one');
});

t.test('a second server on the same folder, or on a port in use, exits at once with a clear message', async (t) => {
  const server = await startServerProcess(env, slow);
  t.teardown(() => server.kill('SIGTERM'));
  t.teardown(() => rm(`${db.dataDir}-other`, { recursive: true, force: true }));
  /** `npm start` as a second server: how it exited and what it said on stderr. */
  const second = (over: Record<string, string>) =>
    run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...childEnv, HOST: '127.0.0.1', ...over },
      cwd: root,
      timeout: 120_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
  const onPort = await second({ PORT: String(server.port), DATA_DIR: `${db.dataDir}-other` });
  t.equal(onPort.code, 1, 'the second server on the port exits with status 1');
  t.match(onPort.stderr, /^loupe: Port \d+ on 127\.0\.0\.1 is in use/m);
  if (!db.databaseUrl)
    t.notOk(existsSync(`${db.dataDir}-other/loupe.lock`), 'it closed its database and let its folder go');
  if (!db.databaseUrl) {
    const onFolder = await second({ PORT: '0' });
    t.equal(onFolder.code, 1, 'the second server on the folder exits with status 1');
    t.match(onFolder.stderr, /^loupe: The data folder .* is in use by another Loupe process \(pid \d+, server\)/m);
  }
  const health = await fetch(`${server.url}/v2/health`);
  t.equal(health.status, 200, 'the first server goes on');
});

t.test('a killed server leaves no stuck lock', async (t) => {
  const server = await startServerProcess(env, slow);
  await server.kill('SIGKILL');
  const again = await startServerProcess(env, slow);
  t.teardown(() => again.kill('SIGTERM'));
  t.equal((await fetch(`${again.url}/v2/health`)).status, 200, 'the next start takes the folder');
});

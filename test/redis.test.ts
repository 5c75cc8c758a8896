// Redis going away: a server whose REDIS_URL does not answer exits at start with a message saying so; one
// that loses its Redis while running answers 503 with Retry-After on the routes that need it (never a 500,
// never a request left hanging) and recovers by itself once Redis is back. The Redis here is the test's
// own redis-server, stopped and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startLoupe } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createProject } from '../src/db/projects.ts';
import { createLogger } from '../src/log.ts';
import { createTestDatabase } from './support/database.ts';
import { freePort } from './support/process.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

t.test('a REDIS_URL that does not answer: the server exits with a clear message', async (t) => {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: db.dataDir,
      REDIS_URL: `redis://127.0.0.1:${port}`,
      ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('exit', (c) => (clearTimeout(timer), resolve(c)));
  });
  t.equal(code, 1, 'it exits with status 1');
  t.match(out, new RegExp(`Redis at redis://127\\.0\\.0\\.1:${port} did not answer`), 'saying which Redis');
  t.match(out, /unset REDIS_URL/, 'and what to do');
  t.notMatch(out, /loupe listening/, 'it never said it was listening');
});

t.test('Redis lost at run time: 503 with Retry-After, then back by itself', async (t) => {
  const port = await freePort();
  let redis = startRedis(port);
  t.teardown(() => stopRedis(redis));
  await waitForRedis(port);
  const db = await createTestDatabase();
  const loupe = await startLoupe(
    loadConfig(
      {
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: db.dataDir,
        REDIS_URL: `redis://127.0.0.1:${port}`,
        ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
      },
      { ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } },
    ),
    createLogger('silent'),
  );
  t.teardown(async () => {
    await loupe.close();
    await db.drop();
  });
  const { secretKey } = (await createProject(loupe.services.sql, { id: 'site', name: 'site', visibility: 'private' }))!;
  await loupe.services.projects.refresh();
  let n = 0;
  const ingest = async () => {
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${loupe.port}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `e${++n}`, name: 'pageview', visitor: 'v', context: { ip: '81.2.69.160' } }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { error?: { code: string } };
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body, ms: performance.now() - started };
  };

  t.equal((await ingest()).status, 202, 'with Redis: accepted');
  await stopRedis(redis);
  const during: Awaited<ReturnType<typeof ingest>>[] = [];
  for (const deadline = Date.now() + 3_000; Date.now() < deadline;) {
    during.push(await ingest());
    await new Promise((r) => setTimeout(r, 100));
  }
  const refused = during.filter((r) => r.status === 503);
  t.ok(refused.length > 0, `${refused.length} of ${during.length} requests answered 503 while Redis was gone`);
  t.ok(
    during.every((r) => r.status === 503 || r.status === 202),
    `never a 500 (${[...new Set(during.map((r) => r.status))].join(', ')})`,
  );
  t.ok(
    refused.every((r) => r.body.error?.code === 'UNAVAILABLE' && Number(r.retryAfter) >= 1),
    'UNAVAILABLE, with Retry-After',
  );
  const slowest = Math.max(...during.map((r) => r.ms));
  t.ok(slowest < 2_000, `every answer within 2 s (slowest ${Math.round(slowest)} ms)`);

  redis = startRedis(port);
  await waitForRedis(port);
  let back: Awaited<ReturnType<typeof ingest>> | null = null;
  const restarted = Date.now();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    back = await ingest();
    if (back.status === 202) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(back?.status, 202, `accepted again ${Date.now() - restarted} ms after Redis came back`);
});

function startRedis(port: number): ChildProcess {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function waitForRedis(port: number): Promise<void> {
  const { Redis } = await import('ioredis');
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  try {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch {
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`redis-server on port ${port} did not start`);
  } finally {
    probe.disconnect();
  }
}

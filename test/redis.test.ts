// Redis going away: a server whose REDIS_URL does not answer exits at start with a message saying so; one
// that loses its Redis while running answers 503 with Retry-After on the routes that need it (never a 500,
// never a request left hanging) and recovers by itself once Redis is back. The Redis here is the test's
// own redis-server, stopped and started again on the same port. A flush that commits while Redis is down
// is acknowledged and kept, and its failed publish to other processes ends nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import t, { type Test } from 'tap';
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
  const { redis, loupe, secretKey } = await serverWithOwnRedis(t);
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
  await redis.stop();
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

  await redis.start();
  let back: Awaited<ReturnType<typeof ingest>> | null = null;
  const restarted = Date.now();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    back = await ingest();
    if (back.status === 202) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(back?.status, 202, `accepted again ${Date.now() - restarted} ms after Redis came back`);
});

t.test(
  'a flush that commits while Redis is down: acknowledged, kept, no crash, then back',
  { skip: process.env.DATABASE_URL ? false : 'needs PostgreSQL (DATABASE_URL): a second session holds the lock' },
  async (t) => {
    // The flush is held deterministically: the test holds a SHARE lock on `events` (PostgreSQL only, where
    // the test has a connection of its own beside the server's), sends a batch, waits until the server's
    // insert is seen waiting on that lock, stops Redis, waits until the server itself finds Redis out of
    // reach, and only then lets the flush commit. Its log lines' publish to other processes then fails.
    const { redis, db, loupe, secretKey } = await serverWithOwnRedis(t);
    const own = postgres(db.databaseUrl!, { max: 2, onnotice: () => {} });
    // An unhandled rejection would end a server process; here it is recorded instead, and must not happen.
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => void unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    t.teardown(async () => {
      process.off('unhandledRejection', onUnhandled);
      await own.end();
    });

    // What became of each publish of log lines to the other processes (the server's own bus, observed).
    const bus = loupe.services.bus;
    const publish = bus.publish.bind(bus);
    const published: { ok: boolean; requestIds: string[] }[] = [];
    let onPublished: (() => void) | null = null;
    bus.publish = (channel, message) => {
      const result = publish(channel, message);
      if (!channel.endsWith('logs')) return result;
      const requestIds = [...JSON.stringify(message).matchAll(/"requestId":"([^"]+)"/g)].map((m) => m[1]!);
      const note = (ok: boolean) => (published.push({ ok, requestIds }), onPublished?.());
      result.then(
        () => note(true),
        () => note(false),
      );
      // A promise of its own for the caller: observing `result` above handles its rejection, and the
      // caller must be the one to handle this one (or the process sees an unhandled rejection).
      return result.then((n) => n);
    };
    const publishOf = (requestId: string, timeoutMs = 10_000) =>
      new Promise<{ ok: boolean }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no publish of ${requestId}'s lines`)), timeoutMs);
        const look = () => {
          const found = published.find((p) => p.requestIds.includes(requestId));
          if (found) (clearTimeout(timer), (onPublished = null), resolve(found));
        };
        onPublished = look;
        look();
      });

    const batch = (name: string) =>
      fetch(`http://127.0.0.1:${loupe.port}/v2/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', 'x-request-id': name },
        body: JSON.stringify({
          events: Array.from({ length: 5 }, (_, i) => ({
            id: `${name}-${i}`,
            name: 'pageview',
            visitor: `v${i}`,
            context: { ip: '81.2.69.160' },
          })),
        }),
        signal: AbortSignal.timeout(30_000),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { accepted?: number } }));
    const stored = async (name: string) =>
      Number(
        (
          await own<
            { n: string }[]
          >`select count(*)::text as n from events where project_id = 'site' and id like ${name + '-%'}`
        )[0]!.n,
      );

    const before = await batch('before');
    t.same([before.status, before.body.accepted], [202, 5], 'with Redis: a batch accepted');
    t.equal((await publishOf('before')).ok, true, 'and its lines published to the other processes');

    const lock = await own.reserve();
    await lock`begin`;
    await lock`lock table events in share mode`;
    const held = batch('held');
    for (const deadline = Date.now() + 10_000; ;) {
      const [w] = await own<{ n: string }[]>`
      select count(*)::text as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
      if (Number(w!.n) > 0) break;
      if (Date.now() > deadline) throw new Error("the server's flush never waited on the lock");
      await new Promise((r) => setTimeout(r, 20));
    }
    t.pass("the batch's flush waits on the lock");

    await redis.stop();
    // Until the server's own client fails a publish, it may not have seen the connection close yet.
    for (const deadline = Date.now() + 10_000; ;) {
      const reached = await publish('probe', 1).then(
        () => true,
        () => false,
      );
      if (!reached) break;
      if (Date.now() > deadline) throw new Error('publishing still worked 10 s after Redis was stopped');
      await new Promise((r) => setTimeout(r, 20));
    }
    t.pass('the server finds Redis out of reach');

    await lock`commit`;
    lock.release();
    const answer = await held;
    t.same([answer.status, answer.body.accepted], [202, 5], 'the held batch is acknowledged: 202, 5 accepted');
    t.equal((await publishOf('held')).ok, false, "its lines' publish failed (Redis down)");
    t.equal(await stored('held'), 5, 'its events are stored');
    // One more turn of the loop for a rejection nobody handled to be reported.
    await new Promise((r) => setImmediate(r));
    t.same(unhandled, [], 'no unhandled rejection');
    const health = await fetch(`http://127.0.0.1:${loupe.port}/v2/health`);
    t.equal(health.status, 200, 'the server still answers');

    await redis.start();
    let after: Awaited<ReturnType<typeof batch>> | null = null;
    for (let i = 0, deadline = Date.now() + 15_000; Date.now() < deadline; i++) {
      after = await batch(`after${i}`);
      if (after.status === 202) {
        t.equal((await publishOf(`after${i}`)).ok, true, 'after Redis came back, lines are published again');
        t.equal(await stored(`after${i}`), 5, 'and the batch is stored');
        break;
      }
      t.equal(after.status, 503, 'until then ingest answers 503');
      await new Promise((r) => setTimeout(r, 100));
    }
    t.equal(after?.status, 202, 'ingest accepted again once Redis is back');
    t.same([await stored('before'), await stored('held')], [5, 5], 'every acknowledged event stored once');
    t.same(unhandled, [], 'no unhandled rejection at any point');
  },
);

/** A server on a database of its own and on a Redis of the test's own (stopped and started again by the
 *  test through `redis`), with a project `site`; all of it ends with the test. */
async function serverWithOwnRedis(t: Test) {
  const port = await freePort();
  let child = startRedis(port);
  t.teardown(() => stopRedis(child));
  await waitForRedis(port);
  const redis = {
    stop: () => stopRedis(child),
    start: async () => {
      child = startRedis(port);
      await waitForRedis(port);
    },
  };
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
  return { redis, db, loupe, secretKey };
}

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

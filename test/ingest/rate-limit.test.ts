import { randomUUID } from 'node:crypto';
import t from 'tap';
import { openRedis } from '../../src/bus.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, INGEST_RATE_LIMIT } from '../../src/ingest/rate-limit.ts';

const T0 = 1_700_000_000_000;

t.test('memory: a full bucket allows a burst of `capacity`, then refuses with the wait for one token', async (t) => {
  const rl = createMemoryRateLimiter({ capacity: 3, refillPerSecond: 2, maxKeys: 10 });
  t.teardown(() => rl.close());
  for (let i = 0; i < 3; i++) t.same(await rl.take('pk:1.2.3.4', 1, T0), { ok: true });
  // One token comes back every 500 ms: the Retry-After rounds that up to a whole second.
  t.same(await rl.take('pk:1.2.3.4', 1, T0), { ok: false, retryAfterSeconds: 1 });
  t.same(await rl.take('pk:1.2.3.4', 1, T0 + 499), { ok: false, retryAfterSeconds: 1 });
  t.same(await rl.take('pk:1.2.3.4', 1, T0 + 500), { ok: true });
  t.same(await rl.take('pk:1.2.3.4', 1, T0 + 500), { ok: false, retryAfterSeconds: 1 });
  // Another key (another IP or project) has its own bucket.
  t.same(await rl.take('pk:5.6.7.8', 1, T0 + 500), { ok: true });
});

t.test('memory: refill stops at capacity and retryAfter covers the whole cost', async (t) => {
  const rl = createMemoryRateLimiter({ capacity: 10, refillPerSecond: 1, maxKeys: 10 });
  t.teardown(() => rl.close());
  t.same(await rl.take('k', 10, T0), { ok: true });
  t.same(await rl.take('k', 4, T0 + 1_000), { ok: false, retryAfterSeconds: 3 });
  // An hour idle refills to 10, not 3,600: the burst stays bounded.
  t.same(await rl.take('k', 10, T0 + 3_600_000), { ok: true });
  t.same(await rl.take('k', 1, T0 + 3_600_000), { ok: false, retryAfterSeconds: 1 });
  // A clock that steps back neither refills nor throws.
  t.same(await rl.take('k', 1, T0), { ok: false, retryAfterSeconds: 1 });
  await t.rejects(rl.take('k', 11, T0), RangeError);
  await t.rejects(rl.take('k', 0, T0), RangeError);
});

t.test('memory: ingest defaults are a burst of 200 then 50 a second', async (t) => {
  t.same(INGEST_RATE_LIMIT, { capacity: 200, refillPerSecond: 50 });
  const rl = createMemoryRateLimiter();
  t.teardown(() => rl.close());
  let ok = 0;
  for (let i = 0; i < 250; i++) if ((await rl.take('pk:ip', 1, T0)).ok) ok++;
  t.equal(ok, 200);
  ok = 0;
  for (let i = 0; i < 100; i++) if ((await rl.take('pk:ip', 1, T0 + 1_000)).ok) ok++;
  t.equal(ok, 50);
});

t.test('memory: the map is bounded; idle (full) buckets are dropped before busy ones', async (t) => {
  const rl = createMemoryRateLimiter({ capacity: 2, refillPerSecond: 1, maxKeys: 2 });
  t.teardown(() => rl.close());
  await rl.take('busy', 2, T0 + 5_000);
  await rl.take('idle', 1, T0); // full again at T0 + 1 s
  await rl.take('new', 1, T0 + 5_000); // needs room: 'idle' is full, so it goes, 'busy' stays
  t.same(await rl.take('busy', 1, T0 + 5_000), { ok: false, retryAfterSeconds: 1 });
  // Nothing idle: the least recently used bucket is forgotten.
  await rl.take('newer', 2, T0 + 5_000);
  await rl.take('newest', 2, T0 + 5_000);
  t.same(await rl.take('newer', 1, T0 + 5_000), { ok: false, retryAfterSeconds: 1 });
  t.same(await rl.take('busy', 2, T0 + 5_000), { ok: true }, 'busy was evicted and starts full');
});

const redisUrl = process.env.REDIS_URL;
// Real Redis runs where REDIS_URL is set (CI sets it); without it the in-memory version above is the one in use.
if (redisUrl)
  t.test('redis: the same bucket, shared by every process through one Lua script', async (t) => {
    const redis = openRedis(redisUrl!);
    const prefix = `loupe-test:rl:${randomUUID()}:`;
    t.teardown(async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });
    const a = createRedisRateLimiter(redis, { capacity: 3, refillPerSecond: 10, prefix });
    const b = createRedisRateLimiter(redis, { capacity: 3, refillPerSecond: 10, prefix });

    t.test('burst, refusal, retryAfter and refill with an injected clock', async (t) => {
      for (let i = 0; i < 3; i++) t.same(await (i % 2 ? a : b).take('pk:ip', 1, T0), { ok: true });
      t.same(await a.take('pk:ip', 1, T0), { ok: false, retryAfterSeconds: 1 });
      t.same(await b.take('pk:ip', 1, T0 + 99), { ok: false, retryAfterSeconds: 1 });
      t.same(await b.take('pk:ip', 1, T0 + 100), { ok: true });
      t.same(await a.take('pk:ip', 3, T0 + 100), { ok: false, retryAfterSeconds: 1 });
    });

    t.test('the server clock: a real wait refills, and the key expires once full again', async (t) => {
      for (let i = 0; i < 3; i++) t.same(await a.take('real'), { ok: true });
      t.same(await b.take('real'), { ok: false, retryAfterSeconds: 1 });
      const ttl = await redis.pttl(`${prefix}real`);
      t.ok(ttl > 0 && ttl <= 300, `expires when full again (pttl ${ttl})`);
      await sleep(150);
      t.same(await a.take('real'), { ok: true });
      await sleep(400);
      t.equal(await redis.exists(`${prefix}real`), 0, 'a full bucket leaves nothing behind');
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

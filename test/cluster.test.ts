// Project leases and forwarding between processes (src/leases.ts, src/cluster/), each process here a
// registry of real project actors over a recording store, a Redis bus of its own and Redis leases with a
// short lifetime: who holds a project, forwarding, a holder that is killed (its requests elsewhere answer
// 503 at once until its lease expires, then another process takes the project over; a batch it had in
// flight is never sent to the next holder) and one that stops (it frees its leases at once). The embedded
// single process is the local leases' case: it holds every project.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { ActorStore } from '../actors/project-actor.ts';
import { createActorRegistry } from '../actors/registry.ts';
import { createMemoryBus, createRedisBus, openRedis } from '../src/bus.ts';
import { createCluster } from '../src/cluster.ts';
import { createLocalLeases, createRedisLeases, type Leases } from '../src/leases.ts';
import { createLogger } from '../src/log.ts';
import { enrichedRow } from './support/enriched-row.ts';

const meta = { requestId: 'r', rejected: 0, rejectionLogs: [] };
const log = createLogger('silent');

/** A store that keeps what it commits in memory, shared by the processes of a test as one database is;
 *  `applied` lists the projects whose held deltas a checkpoint applied (settle). */
function sharedStore() {
  const stored = new Map<string, string>(); // event id → session id
  const applied: string[] = [];
  const store: ActorStore = {
    async commit(_projectId, events, after) {
      const inserted = new Set<string>();
      for (const e of events) if (!stored.has(e.id)) (stored.set(e.id, e.session_id), inserted.add(e.id));
      after(inserted);
      const fold =
        inserted.size === 0 ? null : { journalId: events[0]!.id, sessions: [], visitors: [], counters: null };
      return { inserted, logs: [], fold };
    },
    async checkpoint(projectId) {
      applied.push(projectId);
    },
  };
  return { store, stored, applied };
}

t.test('alone, a process holds every project and forwards nothing', async (t) => {
  const { store, stored, applied } = sharedStore();
  const actors = createActorRegistry({ store });
  const cluster = createCluster({
    actors,
    leases: createLocalLeases('solo'),
    bus: createMemoryBus(),
    prefix: 'x:',
    log,
  });
  t.teardown(() => cluster.stop());
  const handle = await cluster.project('p');
  t.same(await handle.ingest([enrichedRow({ id: 'e1' })], meta), { accepted: 1, duplicates: 0 });
  t.ok(stored.has('e1'));
  t.same(cluster.held(), ['p']);
  t.equal(await cluster.project('p'), handle, 'one handle a project while its actor lives');
  t.same(applied, []);
  await cluster.settleAll(['p', 'nobody']);
  t.same(applied, ['p'], 'a read across projects applies what the actors of its projects hold');
});

/** Leases as another process's would answer them, for what this process does when things fail. */
const otherHolds = (over: Partial<Leases> = {}): Leases => ({
  self: 'me',
  acquire: async () => 'other',
  holder: async () => 'other',
  renew: async () => [],
  release: async () => {},
  present: async () => {},
  peers: async () => ['other'],
  leave: async () => {},
  ...over,
});

t.test('a forward the bus cannot send fails at once with 503, and leaves nothing to reject later', async (t) => {
  const { store } = sharedStore();
  const actors = createActorRegistry({ store });
  const bus = createMemoryBus();
  const broken = {
    ...bus,
    publish: async () => {
      throw new Error('redis down');
    },
  };
  const cluster = createCluster({
    actors,
    leases: otherHolds(),
    bus: broken,
    prefix: 'x:',
    log,
    timeoutMs: 20,
    ingestTimeoutMs: 20,
  });
  t.teardown(() => cluster.stop());
  const refused = await (await cluster.project('p')).ingest([enrichedRow()], meta).catch((err: unknown) => err);
  t.match(refused, { status: 503, code: 'UNAVAILABLE' });
  await cluster.settleAll(['p']); // the read across projects goes on without the other process's deltas
  await new Promise((r) => setTimeout(r, 60)); // past the timeout: an unhandled rejection would fail this file
});

t.test('leases that cannot be renewed are let go before they can expire', async (t) => {
  const { store } = sharedStore();
  const actors = createActorRegistry({ store });
  const leases = otherHolds({
    acquire: async () => 'me',
    holder: async () => 'me',
    renew: async () => {
      throw new Error('redis down');
    },
  });
  const cluster = createCluster({
    actors,
    leases,
    bus: createMemoryBus(),
    prefix: 'x:',
    log,
    renewMs: 10,
    leaseMs: 100,
  });
  t.teardown(() => cluster.stop());
  await cluster.project('p');
  t.same(cluster.held(), ['p']);
  await new Promise((r) => setTimeout(r, 150));
  t.same(
    cluster.held(),
    [],
    'not renewed for 70% of their lifetime: another process may take them, so this one lets them go',
  );
});

const redisUrl = process.env.REDIS_URL;
// Real Redis runs where REDIS_URL is set (CI sets it); without it a process is alone, as above.
if (redisUrl)
  t.test('redis', async (t) => {
    const prefix = `loupe-test:${randomUUID()}:`;
    const probe = openRedis(redisUrl!);
    t.teardown(async () => {
      const keys = await probe.keys(`${prefix}*`);
      if (keys.length > 0) await probe.del(...keys);
      await probe.quit();
    });

    t.test('leases: one holder; renewed or lost; freed only by their holder', async (t) => {
      const a = createRedisLeases(probe, {
        self: 'a',
        prefix: `${prefix}lease:`,
        presenceKey: `${prefix}leases-test-processes`,
        ttlMs: 300,
      });
      const b = createRedisLeases(probe, {
        self: 'b',
        prefix: `${prefix}lease:`,
        presenceKey: `${prefix}leases-test-processes`,
        ttlMs: 300,
      });
      t.equal(await b.holder('p1'), null, 'nobody holds a project nobody needed');
      t.equal(await a.acquire('p1'), 'a');
      t.equal(await b.acquire('p1'), 'a', 'the second process learns the holder');
      t.equal(await a.acquire('p1'), 'a', 'the holder keeps it');
      await b.release('p1');
      t.equal(await b.holder('p1'), 'a', 'only the holder frees a lease');
      t.same(await a.renew(['p1', 'p2']), ['p2'], 'renewing answers the leases not held');
      await new Promise((r) => setTimeout(r, 200));
      t.same(await a.renew(['p1']), []);
      await new Promise((r) => setTimeout(r, 200));
      t.equal(await b.holder('p1'), 'a', 'renewed: still held past the first lifetime');
      await new Promise((r) => setTimeout(r, 350));
      t.equal(await b.acquire('p1'), 'b', 'not renewed: it expires, and the next process takes it');
      t.same(await a.renew(['p1']), ['p1'], 'the former holder learns it lost it');
      await b.release('p1');
      t.equal(await a.holder('p1'), null);

      t.same(await a.peers(), [], 'no other process has said it is alive');
      await Promise.all([a.present(), b.present()]);
      t.same([await a.peers(), await b.peers()], [['b'], ['a']], 'each learns of the other');
      await b.leave();
      t.same(await a.peers(), [], 'a process that stops is gone at once');
      await b.present();
      await new Promise((r) => setTimeout(r, 350));
      t.same(await a.peers(), [], "and one that says nothing for a lease's lifetime is taken for gone");
    });

    /** A process: its actors, its bus and leases on Redis connections of its own (so it can die alone). */
    const processes: { stop: () => Promise<void> }[] = [];
    t.teardown(async () => {
      for (const p of processes) await p.stop();
    });
    function start(name: string, store: ActorStore) {
      const redis = openRedis(redisUrl!);
      const bus = createRedisBus(redisUrl!);
      const actors = createActorRegistry({ store });
      const leases = createRedisLeases(redis, {
        self: `${name}-${randomUUID().slice(0, 8)}`,
        prefix: `${prefix}lease:`,
        presenceKey: `${prefix}processes`,
        ttlMs: 1_000,
      });
      const cluster = createCluster({
        actors,
        leases,
        bus,
        prefix,
        log,
        timeoutMs: 300,
        ingestTimeoutMs: 1_500,
        renewMs: 200,
        leaseMs: 1_000,
      });
      let alive = true;
      const p = {
        cluster,
        actors,
        self: leases.self,
        /** Stops as a process does on SIGTERM: flush, free the leases, say so. */
        async stop() {
          if (!alive) return;
          alive = false;
          await cluster.stop();
          await bus.close();
          await redis.quit();
        },
        /** Dies as on SIGKILL: no word to anyone, its leases left to expire. */
        async kill() {
          alive = false;
          redis.disconnect();
          await bus.close();
        },
      };
      processes.push(p);
      return p;
    }
    // The bus subscribes asynchronously: a process is ready once its own channel counts a subscriber.
    const subscribed = async (self: string) => {
      for (let i = 0; i < 200; i++) {
        const [, n] = (await probe.pubsub('NUMSUB', `${prefix}actor:${self}`)) as [string, number];
        if (Number(n) > 0) return;
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    t.test(
      'the holder is killed: its requests elsewhere answer 503 at once until its lease expires, then the next holder takes the project',
      async (t) => {
        const { store, stored } = sharedStore();
        const a = start('a', store);
        const b = start('b', store);
        await Promise.all([subscribed(a.self), subscribed(b.self)]);
        const ts = new Date().toISOString();
        t.same(await (await a.cluster.project('p')).ingest([enrichedRow({ id: 'k1', visitor_id: 'v', ts })], meta), {
          accepted: 1,
          duplicates: 0,
        });
        t.same(
          await (await b.cluster.project('p')).ingest([enrichedRow({ id: 'k2', visitor_id: 'v', ts })], meta),
          { accepted: 1, duplicates: 0 },
          'forwarded to the holder',
        );
        t.equal(stored.get('k2'), stored.get('k1'), 'placed by the holder: one session');
        t.same(b.cluster.held(), []);

        await a.kill();
        const killed = Date.now();
        const timed = async <T>(p: Promise<T>) => {
          const started = Date.now();
          const value = await p.catch((err: unknown) => err);
          return { value, ms: Date.now() - started };
        };
        const read = await timed((await b.cluster.project('p')).realtime(10));
        t.match(read.value, { status: 503, code: 'UNAVAILABLE', headers: { 'Retry-After': '1' } }, 'a read: 503');
        t.ok(read.ms < 1_000, `at once (${read.ms} ms)`);
        const batch = await timed(
          (await b.cluster.project('p')).ingest([enrichedRow({ id: 'k3', visitor_id: 'v' })], meta),
        );
        t.match(batch.value, { status: 503 }, 'a batch: 503, not sent anywhere');
        t.ok(batch.ms < 1_000, `at once (${batch.ms} ms)`);
        t.notOk(stored.has('k3'));
        let answer: unknown;
        while (Date.now() - killed < 5_000) {
          answer = await (
            await b.cluster.project('p')
          )
            .ingest([enrichedRow({ id: 'k3', visitor_id: 'v' })], meta)
            .catch((e: unknown) => e);
          if (!(answer instanceof Error)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        t.same(
          answer,
          { accepted: 1, duplicates: 0 },
          'sent again once the lease expired: the other process stores it',
        );
        t.ok(Date.now() - killed < 2_000, `taken over ${Date.now() - killed} ms after the kill (lease 1 s)`);
        t.same(b.cluster.held(), ['p']);
      },
    );

    t.test('a batch in flight when its holder dies: 503 within a second, never sent to the next holder', async (t) => {
      const { store, stored } = sharedStore();
      let release!: () => void;
      const stuck = new Promise<void>((r) => (release = r));
      const slow: ActorStore = { ...store, commit: async (...args) => (await stuck, store.commit(...args)) };
      const a = start('a', slow);
      const b = start('b', store);
      t.teardown(() => release());
      await Promise.all([subscribed(a.self), subscribed(b.self)]);
      await (await a.cluster.project('q')).realtime(1);
      const started = Date.now();
      const pending = (await b.cluster.project('q'))
        .ingest([enrichedRow({ id: 'f1', visitor_id: 'v' })], meta)
        .catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, 100));
      await a.kill();
      t.match(await pending, { status: 503, code: 'UNAVAILABLE' }, 'the sender hears the holder is gone');
      t.ok(Date.now() - started < 1_500, `within ${Date.now() - started} ms`);
      await new Promise((r) => setTimeout(r, 1_500)); // the lease expires; nothing is sent again by itself
      t.notOk(stored.has('f1'), 'the batch went nowhere else');
    });

    t.test("a read across projects applies what every process holds, its own and the others'", async (t) => {
      const { store, applied } = sharedStore();
      const a = start('a', store);
      const b = start('b', store);
      await Promise.all([subscribed(a.self), subscribed(b.self)]);
      for (const [who, projectId] of [
        [a, 'x1'],
        [a, 'x2'],
        [b, 'x3'],
      ] as const) {
        await (await who.cluster.project(projectId)).ingest([enrichedRow({ id: `${projectId}-e` })], meta);
      }
      await (await a.cluster.project('x4')).ingest([enrichedRow({ id: 'x4-e' })], meta);
      t.same(applied, [], 'held until a checkpoint (every 5 s) or a read');
      await new Promise((r) => setTimeout(r, 50)); // both have said they are alive
      await b.cluster.settleAll(['x1', 'x2', 'x3', 'elsewhere']);
      t.same(
        applied.sort(),
        ['x1', 'x2', 'x3'],
        'x1 and x2 by their holder, x3 here; x4, not read, waits for its checkpoint',
      );
      t.same(b.cluster.held(), ['x3'], 'nothing taken over to apply it');
    });

    t.test('the holder stops: it frees its leases and says so, and the next request is taken at once', async (t) => {
      const { store, stored } = sharedStore();
      const a = start('a', store);
      const b = start('b', store);
      await Promise.all([subscribed(a.self), subscribed(b.self)]);
      await (await a.cluster.project('q')).ingest([enrichedRow({ id: 's1' })], meta);
      await (await b.cluster.project('q')).ingest([enrichedRow({ id: 's2' })], meta); // b now knows a holds q
      await a.stop();
      await new Promise((r) => setTimeout(r, 50)); // the word reaches b
      const started = Date.now();
      t.same(await (await b.cluster.project('q')).ingest([enrichedRow({ id: 's3' })], meta), {
        accepted: 1,
        duplicates: 0,
      });
      t.ok(Date.now() - started < 400, `no wait for a timeout (${Date.now() - started} ms)`);
      t.same(b.cluster.held(), ['q']);
      t.same([...stored.keys()], ['s1', 's2', 's3']);
    });
  });

import { randomUUID } from 'node:crypto';
import t from 'tap';
import { createMemoryBus, createRedisBus, openRedis, type Bus } from '../src/bus.ts';

const redisUrl = process.env.REDIS_URL;
// A unique prefix per run, so parallel runs on one Redis never hear each other.
const run = `loupe-test:bus:${randomUUID()}`;

/** Collects what a handler receives; `next()` resolves with the next message (or fails after 2 s). */
function inbox(bus: Bus, channel: string) {
  const got: unknown[] = [];
  const waiters: ((m: unknown) => void)[] = [];
  const unsubscribe = bus.subscribe(channel, (m) => {
    got.push(m);
    waiters.shift()?.(m);
  });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing on ${channel}`)), 2_000);
      waiters.push((m) => (clearTimeout(timer), resolve(m)));
    });
  return { got, next, unsubscribe };
}

const settle = (ms = 50) => new Promise((r) => setTimeout(r, ms));

t.test('memory bus', async (t) => {
  const bus = createMemoryBus();
  t.teardown(() => bus.close());

  t.test('delivers a JSON copy to every handler, on a later tick', async (t) => {
    const a = inbox(bus, 'live:p1');
    const b = inbox(bus, 'live:p1');
    const other = inbox(bus, 'live:p2');
    const sent = { path: '/pricing', at: new Date(0), n: 1 };
    const got = a.next();
    await bus.publish('live:p1', sent);
    t.same(a.got, [], 'not delivered synchronously');
    t.same(await got, { path: '/pricing', at: '1970-01-01T00:00:00.000Z', n: 1 }, 'went through JSON');
    await settle();
    t.same(b.got, a.got);
    t.not(b.got[0], sent);
    t.same(other.got, []);
    a.unsubscribe();
    b.unsubscribe();
    other.unsubscribe();
  });

  t.test('unsubscribe stops delivery, is safe twice, and leaves other handlers alone', async (t) => {
    const a = inbox(bus, 'c');
    const b = inbox(bus, 'c');
    a.unsubscribe();
    a.unsubscribe();
    await bus.publish('c', 1);
    t.equal(await b.next(), 1);
    t.same(a.got, []);
    b.unsubscribe();
    await bus.publish('c', 2);
    await settle();
    t.same(b.got, [1]);
  });

  t.test('a throwing handler is reported and does not stop the others', async (t) => {
    const errors: string[] = [];
    const bus2 = createMemoryBus({ onError: (_err, ctx) => errors.push(`${ctx.what}:${ctx.channel}`) });
    t.teardown(() => bus2.close());
    bus2.subscribe('x', () => {
      throw new Error('boom');
    });
    const ok = inbox(bus2, 'x');
    await bus2.publish('x', 'hi');
    t.equal(await ok.next(), 'hi');
    t.same(errors, ['handler:x']);
    await t.rejects(bus2.publish('x', undefined), TypeError, 'undefined is not JSON');
  });
});

// Real Redis runs where REDIS_URL is set (CI sets it); without it the in-memory version above is the one in use.
if (redisUrl)
  t.test('redis bus', async (t) => {
    const a = createRedisBus(redisUrl!);
    const b = createRedisBus(redisUrl!);
    const probe = openRedis(redisUrl!);
    t.teardown(async () => {
      await Promise.all([a.close(), b.close()]);
      await probe.quit();
    });
    // SUBSCRIBE is asynchronous: wait until Redis counts the subscribers before publishing.
    const subscribers = async (channel: string) => {
      const [, n] = (await probe.pubsub('NUMSUB', channel)) as [string, number];
      return Number(n);
    };
    const until = async (channel: string, n: number) => {
      for (let i = 0; i < 200 && (await subscribers(channel)) !== n; i++) await settle(10);
      return subscribers(channel);
    };

    t.test('a message published by one process reaches handlers in another', async (t) => {
      const channel = `${run}:live`;
      const onB = inbox(b, channel);
      const alsoOnB = inbox(b, channel);
      const onA = inbox(a, channel);
      t.equal(await until(channel, 2), 2, 'one Redis subscription per process, however many handlers');
      const next = onB.next();
      await a.publish(channel, { event: 'pageview', path: '/', n: 1.5, ok: true, none: null });
      t.same(await next, { event: 'pageview', path: '/', n: 1.5, ok: true, none: null });
      await settle();
      t.same(alsoOnB.got, onB.got);
      t.same(onA.got, onB.got, 'the publisher hears its own messages too');
      onB.unsubscribe();
      alsoOnB.unsubscribe();
      onA.unsubscribe();
    });

    t.test('unsubscribing the last handler unsubscribes in Redis and stops delivery', async (t) => {
      const channel = `${run}:invalidate`;
      const first = inbox(b, channel);
      const second = inbox(b, channel);
      t.equal(await until(channel, 1), 1);
      first.unsubscribe();
      t.equal(await subscribers(channel), 1, 'still subscribed while a handler remains');
      const next = second.next();
      await a.publish(channel, 'one');
      t.equal(await next, 'one');
      second.unsubscribe();
      t.equal(await until(channel, 0), 0, 'the Redis subscription is gone');
      await a.publish(channel, 'two');
      await settle(100);
      t.same(first.got, []);
      t.same(second.got, ['one']);
    });

    t.test('a payload that is not JSON is reported, not delivered', async (t) => {
      const channel = `${run}:raw`;
      const errors: string[] = [];
      const c = createRedisBus(redisUrl!, { onError: (_err, ctx) => errors.push(`${ctx.what}:${ctx.channel}`) });
      t.teardown(() => c.close());
      const box = inbox(c, channel);
      t.equal(await until(channel, 1), 1);
      await probe.publish(channel, '{not json');
      const next = box.next();
      await probe.publish(channel, '[1,2]');
      t.same(await next, [1, 2]);
      t.same(box.got, [[1, 2]]);
      t.same(errors, [`payload:${channel}`]);
    });
  });

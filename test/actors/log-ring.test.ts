import t from 'tap';
import { LogRing, type LogLine } from '../../actors/log-ring.ts';

const line = (id: number, over: Partial<LogLine> = {}): LogLine => ({
  id: String(id),
  ts: new Date(Date.UTC(2025, 2, 1, 10, 0, id % 60)).toISOString(),
  level: 'info',
  kind: 'ingest',
  source: 'api',
  message: `line ${id}`,
  data: {},
  visitor: null,
  session: null,
  ...over,
});
const ids = (lines: LogLine[]) => lines.map((l) => l.id);

t.test('filters, one field at a time', async (t) => {
  const ring = new LogRing();
  ring.append(line(1, { level: 'warn', message: 'Rate limited request' }));
  ring.append(line(2, { kind: 'jobs', source: 'cron', message: 'rollup done', level: 'ok' }));
  ring.append(
    line(3, { level: 'error', kind: 'pipeline', source: 'engine', visitor: 'v1', message: 'Event REJECTED: props' }),
  );
  ring.append(line(4, { source: 'sdk', kind: 'transport', visitor: 'v2', message: 'beacon failed' }));
  ring.append(line(5, { visitor: 'v1', kind: 'signals', message: 'bot verdict suspect' }));

  t.same(ids(ring.latest({ level: 'warn' })), ['1']);
  t.same(ids(ring.latest({ level: 'info' })), ['4', '5']);
  t.same(ids(ring.latest({ kind: 'jobs' })), ['2']);
  t.same(ids(ring.latest({ kind: 'signals' })), ['5']);
  t.same(ids(ring.latest({ source: 'engine' })), ['3']);
  t.same(ids(ring.latest({ source: 'api' })), ['1', '5']);
  t.same(ids(ring.latest({ visitor: 'v1' })), ['3', '5']);
  t.same(ids(ring.latest({ q: 'rejected' })), ['3'], 'q is case-insensitive');
  t.same(ids(ring.latest({ q: 'RATE LIM' })), ['1']);
  t.same(ids(ring.latest({ visitor: 'v1', level: 'error' })), ['3'], 'fields combine with and');
  t.same(ids(ring.latest({ visitor: 'nobody' })), []);
  t.equal(ring.matches(line(9, { kind: 'auth' }), { kind: 'auth', q: 'LINE 9' }), true);
  t.equal(ring.matches(line(9, { kind: 'auth' }), { kind: 'ingest' }), false);
});

t.test('since and latest ordering, capacity and covers', async (t) => {
  const ring = new LogRing({ capacity: 5 });
  for (const id of [10, 11, 13, 12, 14]) t.equal(ring.append(line(id)), true);
  t.equal(ring.append(line(12)), false, 'a duplicate id is ignored');
  t.same(ids(ring.since(null)), ['10', '11', '12', '13', '14'], 'ordered by id, not arrival');
  t.same(ids(ring.since(11n)), ['12', '13', '14']);
  t.same(ids(ring.since(11n, {}, 2)), ['12', '13'], 'limit keeps the oldest after the cursor');
  t.same(ids(ring.since(14n)), []);
  t.same(ids(ring.latest({}, 2)), ['13', '14'], 'latest keeps the newest, oldest first');

  // Ids past 2^53 compare as BigInt, not as numbers.
  const big = new LogRing();
  big.append(line(0, { id: '9007199254740993' }));
  big.append(line(0, { id: '9007199254740992' }));
  t.same(ids(big.since(9007199254740992n)), ['9007199254740993']);

  t.equal(ring.covers(9n), false, 'no line at or below 9 is held: lines before the ring may be in the database');
  t.equal(ring.covers(10n), true, 'it holds line 10, and every line after it');
  t.equal(new LogRing().covers(5n), false, 'an empty ring made after lines were committed covers nothing');
  t.equal(new LogRing({ floor: 5n }).covers(5n), true, 'one told the largest committed id covers from there');
  ring.append(line(15));
  ring.append(line(16));
  t.equal(ring.size, 5);
  t.same(ids(ring.since(null)), ['12', '13', '14', '15', '16']);
  t.equal(ring.covers(10n), false, 'line 11 is gone: the caller must read the database');
  t.equal(ring.covers(11n), true);
  t.equal(ring.append(line(9)), false, 'older than what the ring holds');

  t.same(ids(new LogRing().latest()), []);
  const many = new LogRing();
  for (let i = 1; i <= 250; i++) many.append(line(i));
  t.same(
    ids(many.latest()),
    Array.from({ length: 100 }, (_, i) => String(151 + i)),
    'default page is the last 100',
  );
  const full = new LogRing();
  for (let i = 1; i <= 1500; i++) full.append(line(i));
  t.equal(full.size, 1000, 'default capacity 1000');
});

t.test('waitFor wakes promptly on a matching append', async (t) => {
  const ring = new LogRing();
  ring.append(line(1));
  let appendedAt = 0;
  const wait = ring.waitFor(1n, { level: 'error' }, 25_000);
  t.equal(ring.waiterCount, 1);
  setTimeout(() => {
    ring.append(line(2)); // does not match: keeps waiting
    t.equal(ring.waiterCount, 1, 'a non-matching line does not wake it');
    appendedAt = performance.now();
    ring.append(line(3, { level: 'error' }));
  }, 20);
  const lines = await wait;
  const took = performance.now() - appendedAt;
  t.same(ids(lines), ['3']);
  t.ok(took < 100, `woke ${took.toFixed(2)} ms after the matching append`);
  t.equal(ring.waiterCount, 0, 'no waiter left');
});

t.test('waitFor returns at once when lines are already there', async (t) => {
  const ring = new LogRing();
  ring.append(line(1));
  ring.append(line(2, { visitor: 'v' }));
  t.same(ids(await ring.waitFor(0n, { visitor: 'v' }, 25_000)), ['2']);
  t.equal(ring.waiterCount, 0);

  // afterId null waits for lines newer than the newest held.
  const wait = ring.waitFor(null, {}, 1000);
  ring.append(line(3));
  t.same(ids(await wait), ['3']);
});

t.test('waitFor times out with []', async (t) => {
  const ring = new LogRing();
  const started = performance.now();
  const lines = await ring.waitFor(null, {}, 50);
  const took = performance.now() - started;
  t.same(lines, []);
  t.ok(took >= 45 && took < 500, `timed out after ${took.toFixed(1)} ms`);
  t.equal(ring.waiterCount, 0);
});

t.test('abort resolves [] and cleans up', async (t) => {
  const ring = new LogRing();
  const controller = new AbortController();
  let added = 0;
  let removed = 0;
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    added++;
    add(...args);
  }) as typeof add;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    removed++;
    remove(...args);
  }) as typeof remove;

  const started = performance.now();
  const wait = ring.waitFor(null, {}, 25_000, signal);
  t.equal(ring.waiterCount, 1);
  setTimeout(() => controller.abort(), 10);
  t.same(await wait, []);
  t.ok(performance.now() - started < 1000, 'did not wait for the timeout');
  t.equal(ring.waiterCount, 0);
  t.same([added, removed], [1, 1], 'the abort listener is removed');

  t.same(await ring.waitFor(null, {}, 25_000, signal), [], 'an aborted signal returns at once');
  t.equal(ring.waiterCount, 0);
  t.equal(added, 1, 'no listener added for an already aborted signal');

  // A wait that ends by a line removes its abort listener too.
  const other = new AbortController();
  let otherRemoved = 0;
  const otherRemove = other.signal.removeEventListener.bind(other.signal);
  other.signal.removeEventListener = ((...args: Parameters<typeof otherRemove>) => {
    otherRemoved++;
    otherRemove(...args);
  }) as typeof otherRemove;
  const byLine = ring.waitFor(null, {}, 25_000, other.signal);
  ring.append(line(1));
  t.same(ids(await byLine), ['1']);
  t.equal(otherRemoved, 1);
  other.abort(); // after the wait ended: harmless
  t.equal(ring.waiterCount, 0);
});

t.test('close ends every wait; many waiters', async (t) => {
  const ring = new LogRing();
  const waits = Array.from({ length: 20 }, () => ring.waitFor(null, {}, 25_000));
  t.equal(ring.waiterCount, 20);
  ring.close();
  t.same(await Promise.all(waits), new Array(20).fill([]));
  t.equal(ring.waiterCount, 0);
});

t.test('subscribe pushes each line; unsubscribe and a throwing listener', async (t) => {
  const errors: unknown[] = [];
  const ring = new LogRing({ onListenerError: (err) => errors.push(err) });
  const seen: string[] = [];
  const off = ring.subscribe((l) => seen.push(l.id));
  ring.subscribe(() => {
    throw new Error('broken socket');
  });
  t.equal(ring.listenerCount, 2);
  ring.append(line(1));
  t.equal(ring.listenerCount, 1, 'the throwing listener is dropped');
  t.equal((errors[0] as Error).message, 'broken socket');
  ring.append(line(2));
  off();
  off();
  ring.append(line(3));
  t.same(seen, ['1', '2']);
  t.equal(ring.listenerCount, 0);
});

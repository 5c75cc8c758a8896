// Heavy reads cannot starve the rest: ranges are bounded (earliest date, longest span), exports and long
// ranges take slots of their own (src/gate.ts), and while 12 exports stream, ingest and /v2/health keep
// answering (typically within a second); a read the statement timeout stops is a 503, not a 500.
import http from 'node:http';
import t from 'tap';
import { createGate } from '../../src/gate.ts';
import { startTestServer } from '../support/server.ts';

// HEAVY_READS_ROWS sizes the exports for a measurement (docs/benchmarks.md); the suite runs 20,000.
const ROWS = Number(process.env.HEAVY_READS_ROWS ?? 20_000);
const s = await startTestServer({ ingestRate: { capacity: 10_000, refillPerSecond: 10_000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const owner = await s.member('owner');
await s.request('PATCH', '/v2/projects/site', { ...owner, body: { publicVisitorData: true } });
await s.loupe.services.projects.refresh();
const sql = s.loupe.services.sql;
const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);

t.test('ranges start no earlier than 2000 and span at most 3660 days', async (t) => {
  const field = async (from: string, to: string) => {
    const res = await s.request('GET', `/v2/projects/site/stats?from=${from}&to=${to}`);
    return res.status === 200 ? 200 : res.body.error.details[0].field;
  };
  t.equal(await field('1999-12-31T00:00:00Z', '2000-02-01T00:00:00Z'), 'query.from');
  t.equal(await field('2010-01-01T00:00:00Z', '2020-01-10T00:00:00Z'), 'query.to', '3661 days');
  t.equal(await field('2010-01-01T00:00:00Z', '2020-01-09T00:00:00Z'), 200, '3660 days');
  t.equal(await field('2030-01-01T00:00:00Z', '2030-02-01T00:00:00Z'), 200, 'a future range is empty, not an error');
});

t.test('the gate: slots, a bounded queue, a bounded wait, and a waiter that leaves', async (t) => {
  const gate = createGate({ slots: 2, queue: 1, waitMs: 100 });
  const never = new AbortController().signal;
  const a = await gate.enter(never);
  await gate.enter(never);
  const queued = gate.enter(never);
  await t.rejects(gate.enter(never), { name: 'HttpError', message: /Too many/ }, 'past the queue: 503');
  a();
  a(); // a release is safe to call twice
  const c = await queued;
  t.same([gate.active, gate.waiting], [2, 0], 'the slot passed to the waiter');
  await t.rejects(gate.enter(never), { name: 'HttpError', message: /Too many/ }, 'past the wait: 503');
  const leaving = new AbortController();
  const left = gate.enter(leaving.signal);
  leaving.abort();
  await t.rejects(left, { name: 'HttpError', message: /Too many/ });
  c();
  t.same([gate.active, gate.waiting], [1, 0]);
});

t.test('while 12 exports stream, ingest and health keep answering (typically within a second)', async (t) => {
  await sql`insert into visitors (project_id, id, first_seen, last_seen)
    select 'site', 'v' || i, ${today}, ${today} from generate_series(1, ${ROWS}) i`;
  await sql`insert into events (project_id, ts, id, name, visitor_id, session_id, path)
    select 'site', ${today}::timestamptz + (i || ' ms')::interval, 'e' || i, 'pageview', 'v' || i, 's' || i, '/p/' || (i % 500)
    from generate_series(1, ${ROWS}) i`;
  const range = `from=${today.toISOString()}&to=${new Date(today.getTime() + DAY).toISOString()}&traffic=all`;
  const exports = Array.from({ length: 12 }, (_, i) =>
    download(`/v2/projects/site/${i % 2 ? 'visitors' : 'sessions'}?format=csv&limit=1000&${range}`),
  );
  await new Promise((r) => setTimeout(r, 200));
  const ingest: number[] = [];
  const health: number[] = [];
  for (let i = 0; i < 40; i++) {
    let started = performance.now();
    const res = await s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      body: { id: `during-${i}`, name: 'pageview', visitor: 'x', page: { path: '/' } },
    });
    ingest.push(performance.now() - started);
    t.equal(res.status, 202);
    if (i % 4 === 0) {
      started = performance.now();
      t.equal((await s.request('GET', '/v2/health')).status, 200);
      health.push(performance.now() - started);
    }
  }
  const statuses = await Promise.all(exports);
  t.ok(
    statuses.every((x) => x === 200 || x === 503),
    `every export answered or was asked to retry (${statuses.join(' ')})`,
  );
  t.ok(statuses.includes(200), 'exports ran');
  const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * q) - 1]!;
  t.comment(
    `ingest p50 ${at(ingest, 0.5).toFixed(0)} ms, p99 ${at(ingest, 0.99).toFixed(0)} ms; health max ${at(health, 1).toFixed(0)} ms`,
  );
  // Starved, every ingest would wait behind the exports (seconds each); one slow answer is the shared
  // machine's noise (tap runs another file beside this one), so the typical answer is held to the issue's
  // second and no answer may come near an export's length. On embedded PGlite (one database session) this
  // holds because exports read their held cursor a page at a time (src/db/held-cursor.ts).
  const typical = 1000;
  const worst = 3000;
  t.ok(at(ingest, 0.5) < typical, `ingest p50 under ${typical} ms (${at(ingest, 0.5).toFixed(0)} ms)`);
  t.ok(at(ingest, 1) < worst, `every ingest under ${worst} ms (slowest ${at(ingest, 1).toFixed(0)} ms)`);
  t.ok(at(health, 1) < worst, `health under ${worst} ms (slowest ${at(health, 1).toFixed(0)} ms)`);
});

/** Downloads a path to the end, reading as fast as the server sends; answers the status. */
function download(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${s.url}${path}`, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

t.test(
  'a read the statement timeout stops answers 503 with Retry-After, not 500',
  { skip: !process.env.DATABASE_URL && 'PostgreSQL only: the embedded database has no statement timeout' },
  async (t) => {
    const slow = await startTestServer({ statementTimeoutMs: 300 });
    t.teardown(() => slow.close());
    await slow.project('slow', 'public');
    // Another transaction holds `events`: the read waits on its lock until the timeout stops it.
    const res = await slow.loupe.services.sql.begin(async (tx) => {
      await tx`lock table events in access exclusive mode`;
      const started = performance.now();
      const res = await slow.request('GET', '/v2/projects/slow/stats?period=7d');
      t.ok(performance.now() - started < 5_000, 'answered within the timeout, not after a long wait');
      return res;
    });
    t.equal(res.status, 503);
    t.equal(res.body.error.code, 'UNAVAILABLE');
    t.match(res.body.error.message, /statement timeout/);
    t.equal(res.headers.get('retry-after'), '5');
    t.equal((await slow.request('GET', '/v2/projects/slow/stats?period=7d')).status, 200, 'the next read answers');
  },
);

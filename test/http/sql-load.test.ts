// Fifty heavy SQL queries at once while a site keeps sending events: queries past the concurrency limit
// and its queue are 429, the rest run (or are stopped by the timeout), none is a 500, and every ingest
// request is answered; its p99 during the storm is measured beside its p99 before it.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({
  sql: { timeoutMs: 1500, concurrency: 4, embeddedMaxCost: 50_000 },
  ingestRate: { capacity: 10_000, refillPerSecond: 10_000 },
});
t.teardown(() => s.close());
const { alpha, owner } = await seedTwoProjects(s);
const embedded = !s.loupe.services.config.databaseUrl;
// PostgreSQL: runs until the statement timeout stops it. Embedded: the heaviest kind of query its cost
// gate lets through in a test's time (6,250 cost units), since there nothing can stop a running one.
const heavy = embedded
  ? 'select count(*) from generate_series(1, 500000) g'
  : 'select count(*) from generate_series(1, 1000000000) g';
const runHeavy = () => s.request('POST', '/v2/projects/alpha/sql', { cookie: owner.cookie, body: { query: heavy } });

let n = 0;
const ingestOnce = async () => {
  const started = performance.now();
  const res = await s.request('POST', '/v2/ingest', {
    token: alpha.secretKey,
    body: { id: `load-${++n}`, name: 'pageview', page: { url: 'https://a.example.com/load' } },
  });
  return { status: res.status, ms: performance.now() - started };
};
/** Sends one event every 50 ms until `until` settles (at most 60 s), answering each one's latency. */
async function ingestDuring(until: Promise<unknown>) {
  let done = false;
  void until.finally(() => (done = true));
  const results: Promise<{ status: number; ms: number }>[] = [];
  const deadline = Date.now() + 60_000;
  while (!done && Date.now() < deadline) {
    results.push(ingestOnce());
    await new Promise((r) => setTimeout(r, 50));
  }
  return Promise.all(results);
}
const p = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;

t.test('fifty heavy queries at once; ingest keeps answering', async (t) => {
  const alone = performance.now();
  const one = await runHeavy();
  const heavyMs = performance.now() - alone;
  t.equal(one.status, embedded ? 200 : 400, `one heavy query alone: ${one.status} in ${Math.round(heavyMs)} ms`);
  if (!embedded) t.equal(one.body.error.code, 'SQL_TIMEOUT');

  const before = await ingestDuring(new Promise((r) => setTimeout(r, 2000)));
  const storm = Promise.all(Array.from({ length: 50 }, runHeavy));
  const during = await ingestDuring(storm);
  const answers = await storm;

  const statuses = new Map<number, number>();
  for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  t.notOk(statuses.has(500), `no 500 (${JSON.stringify([...statuses])})`);
  t.ok((statuses.get(429) ?? 0) > 0, 'past the limit and its queue: 429');
  const ran = answers.filter((a) => a.status !== 429);
  t.ok(ran.length >= 4, `${ran.length} ran`);
  for (const a of ran)
    t.ok(
      embedded ? a.status === 200 : a.status === 400 && a.body.error.code === 'SQL_TIMEOUT',
      `ran: ${a.status} ${a.body?.error?.code ?? ''}`,
    );
  t.equal(answers.find((a) => a.status === 429)?.headers.get('retry-after'), '5');

  t.ok(
    during.every((r) => r.status === 202),
    `all ${during.length} ingest requests during the storm answered 202`,
  );
  const p99Before = p(
    before.map((r) => r.ms),
    0.99,
  );
  const p99During = p(
    during.map((r) => r.ms),
    0.99,
  );
  const p50During = p(
    during.map((r) => r.ms),
    0.5,
  );
  t.comment(
    `ingest p99 before ${Math.round(p99Before)} ms, during ${Math.round(p99During)} ms (p50 ${Math.round(p50During)} ms, ${during.length} requests); heavy query alone ${Math.round(heavyMs)} ms`,
  );
  // Embedded: an ingest commit waits for the one running query at most. PostgreSQL: the queries run on
  // their own connections, so ingest only shares the CPU with them.
  t.ok(
    p99During < heavyMs + 2000,
    `ingest p99 during the storm ${Math.round(p99During)} ms < ${Math.round(heavyMs + 2000)} ms`,
  );
});

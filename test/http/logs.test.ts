// The log stream over HTTP: the lines each decision writes, filters, the long-poll (wakes on a new
// line within 100 ms, empty page after the 25 s wait), the newest 100 lines without a cursor, and
// Server-Sent Events (heartbeats on an idle stream; resumed with Last-Event-ID).
import t from 'tap';
import { DELIVERY_TICK_MS } from '../../actors/sliced.ts';
import { createProject } from '../../src/db/projects.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 3, refillPerSecond: 0.5 }, trustProxy: true });
t.teardown(() => s.close());
const site = await s.project('site', 'private');
const analyst = await s.member('analyst', ['site']);
const viewer = await s.member('viewer', ['site']);
const send = (body: unknown, ip?: string) =>
  s.request('POST', '/v2/ingest', {
    body,
    headers: { 'x-project-key': site.publicKey, ...(ip ? { 'x-forwarded-for': ip } : {}) },
  });
const logs = (qs = '') => s.request('GET', `/v2/projects/site/logs${qs}`, analyst);

t.test('decisions become lines', async (t) => {
  await send({
    events: [
      { id: 'a', name: 'pageview', visitor: 'v1' },
      { id: 'b', name: 'x', props: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i])) },
    ],
  });
  await send({ events: [{ id: 'a', name: 'pageview', visitor: 'v1' }] });
  const res = await logs();
  t.equal(res.status, 200);
  const lines = res.body.data as {
    id: string;
    level: string;
    kind: string;
    source: string;
    message: string;
    data: Record<string, unknown>;
  }[];
  const rejected = lines.find((l) => l.data.code === 'LOUPE_INGEST_REJECTED');
  t.match(rejected, {
    level: 'warn',
    kind: 'ingest',
    source: 'api',
    data: { reason: 'VALIDATION_FAILED', index: 1, event: 'x', field: 'props' },
  });
  t.ok(
    lines.find((l) => /^Accepted 1 of 2 events/.test(l.message)),
    'one line per accepted batch',
  );
  t.ok(
    lines.find((l) => /duplicate/.test(l.message) && l.level === 'info'),
    'duplicates logged',
  );
  t.ok(
    lines.every((l, i) => i === 0 || BigInt(l.id) > BigInt(lines[i - 1]!.id)),
    'oldest first, ids increasing',
  );
  t.equal(res.body.nextCursor, lines.at(-1)!.id);
});

t.test("a bot verdict is written once: a retried batch's duplicates are not judged again", async (t) => {
  // Each try from its own address: this server's bucket holds three requests.
  const bot = (id: string, ip: string) =>
    s.request('POST', '/v2/ingest', {
      body: { events: [{ id, name: 'pageview', visitor: 'crawler-1' }] },
      headers: {
        'x-project-key': site.publicKey,
        'x-forwarded-for': ip,
        'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      },
    });
  for (let i = 1; i <= 3; i++) t.equal((await bot('crawl-1', `203.0.113.${i}`)).status, 202, `try ${i}`);
  const verdicts = async () =>
    ((await logs('?visitor=crawler-1&kind=signals')).body.data as { message: string }[]).map((l) => l.message);
  const once = await verdicts();
  t.equal(once.length, 1, 'one line for the first try, none for the retries');
  t.match(once[0], /^Visitor classified as bot/);
  t.equal((await bot('crawl-2', '203.0.113.4')).status, 202);
  t.equal((await verdicts()).length, 2, 'a new event of the visitor is judged');
});

t.test('rate limiting answers 429 with Retry-After and a line', async (t) => {
  let limited;
  for (let i = 0; i < 6 && !limited; i++) {
    const r = await send({ name: 'pageview', id: `rl${i}` }, '9.9.9.9');
    if (r.status === 429) limited = r;
  }
  t.ok(limited, 'limited');
  t.ok(Number(limited!.headers.get('retry-after')) >= 1, 'Retry-After');
  t.equal(limited!.body.error.code, 'RATE_LIMITED');
  t.same(limited!.body.error.details, [], "the error body's details, empty, as on every error");
  await new Promise((r) => setTimeout(r, 100));
  const line = (await logs('?kind=transport')).body.data[0];
  t.match(line, { level: 'warn', kind: 'transport', message: /Rate limited/ });
  // The counters are added at the actor's next checkpoint (fold-journal.ts): a read settles it first.
  await s.loupe.services.actors.peek('site')?.settle();
  const [c] = await s.loupe.services
    .sql`select sum(rate_limited)::int as n from ingest_counters where project_id = 'site'`;
  t.ok(c!.n >= 1, 'counted for the overview');
});

t.test('filters and validation', async (t) => {
  t.ok((await logs('?level=warn')).body.data.every((l: { level: string }) => l.level === 'warn'));
  t.ok((await logs('?q=DUPLICATE')).body.data.length >= 1, 'q is case-insensitive');
  t.equal((await logs('?q=nothing-like-this')).body.data.length, 0);
  t.equal((await logs('?after=abc')).status, 400);
  t.equal((await logs('?after=abc')).body.error.details[0].field, 'query.after');
  t.equal((await logs(`?q=${'x'.repeat(201)}`)).status, 400);
  t.equal((await logs('?level=loud')).status, 400);
  t.equal((await s.request('GET', '/v2/projects/site/logs', viewer)).status, 403, 'viewers get aggregates only');
});

t.test('long-poll wakes on a new line within a delivery tick', async (t) => {
  const cursor = (await logs()).body.nextCursor as string;
  const started = performance.now();
  const waiting = logs(`?after=${cursor}&kind=ingest`);
  await new Promise((r) => setTimeout(r, 300));
  let committed = 0;
  const [ack, res] = await Promise.all([
    send({ name: 'pageview', id: 'wake' }, '10.0.0.1').then((r) => ((committed = performance.now()), r)),
    waiting.then((r) => ({ ...r, at: performance.now() })),
  ]);
  t.equal(ack.status, 202);
  t.ok(res.body.data.length >= 1, 'got the new line');
  t.ok(res.at - started >= 300, 'it waited');
  // The line is committed before the 202 is written, so the poll answers about when the ingest does, or
  // at the end of the delivery tick when the feed wrote to its subscribers less than a tick ago.
  const lag = res.at - committed;
  t.ok(lag < DELIVERY_TICK_MS + 100, `the long-poll answered ${lag.toFixed(1)} ms after the ingest was acknowledged`);
  t.ok(BigInt(res.body.nextCursor) > BigInt(cursor));
});

t.test('SSE streams lines and resumes with Last-Event-ID', async (t) => {
  const first = (await logs()).body.data as { id: string }[];
  const resumeFrom = first.at(-3)!.id;
  const controller = new AbortController();
  const res = await fetch(`${s.url}/v2/projects/site/logs`, {
    headers: { cookie: analyst.cookie, accept: 'text/event-stream', 'last-event-id': resumeFrom },
    signal: controller.signal,
  });
  t.match(res.headers.get('content-type'), /text\/event-stream/);
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + 5000;
  await send({ name: 'pageview', id: 'sse-live' }, '10.0.0.2');
  const lastKnown = BigInt(first.at(-1)!.id);
  const seenNew = () => [...text.matchAll(/^id: (\d+)$/gm)].some((m) => BigInt(m[1]!) > lastKnown);
  while (Date.now() < deadline && !seenNew()) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
  }
  controller.abort();
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
  t.same(
    ids.slice(0, 2),
    first.slice(-2).map((l) => l.id),
    'resumed right after Last-Event-ID',
  );
  t.ok(ids.length >= 3, 'then live lines');
  t.match(text, /^retry: \d+$/m);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(s.loupe.services.actors.get('site').logs.waiterCount, 0, 'no waiter left after the client went away');
});

t.test('a job run reaches a waiting long-poll, and no line is skipped', async (t) => {
  const cursor = (await logs()).body.nextCursor as string;
  const waiting = logs(`?after=${cursor}`);
  await new Promise((r) => setTimeout(r, 200));
  const run = await s.request('POST', '/v2/admin/jobs/logs', { token: 'cron-secret-for-tests-0123456789' });
  t.equal(run.status, 200);
  const res = await waiting;
  t.match(res.body.data[0], { kind: 'jobs', source: 'cron', message: 'Job logs ran' }, 'woken by the job line itself');
  // A line of the next ingest comes after it: the cursor moves through the job line, not past it.
  await send({ name: 'pageview', id: 'after-job' }, '10.0.0.3');
  const next = await logs(`?after=${res.body.nextCursor}`);
  t.ok(
    next.body.data.length >= 1 && next.body.data.every((l: { kind: string }) => l.kind !== 'jobs'),
    'then the lines after it',
  );
});

t.test('a line that reaches the ring after a larger id is not passed by (long-poll and SSE)', async (t) => {
  const { sql } = s.loupe.services;
  // A committed line the ring has not seen yet (a job's, or one another process forwards, on its way), then
  // an ingest whose line reaches the ring first and wakes the readers.
  const late = async (message: string) =>
    (
      await sql<{ id: string }[]>`
    insert into logs (project_id, level, kind, source, message) values ('site', 'info', 'jobs', 'cron', ${message}) returning id::text`
    )[0]!.id;

  const cursor = (await logs()).body.nextCursor as string;
  const waiting = logs(`?after=${cursor}`);
  await new Promise((r) => setTimeout(r, 100));
  const lateId = await late('late for the long-poll');
  await send({ name: 'pageview', id: 'after-late-poll' }, '10.0.0.4');
  const res = await waiting;
  t.equal(res.body.data[0]?.id, lateId, 'the long-poll answers the late line first');
  t.ok(res.body.data.length >= 2 && BigInt(res.body.nextCursor) > BigInt(lateId), "then the ingest's");

  const controller = new AbortController();
  const stream = await fetch(`${s.url}/v2/projects/site/logs`, {
    headers: { cookie: analyst.cookie, accept: 'text/event-stream', 'last-event-id': res.body.nextCursor },
    signal: controller.signal,
  });
  const reader = stream.body!.getReader();
  let text = '';
  const read = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value);
    }
  })().catch(() => {});
  await new Promise((r) => setTimeout(r, 200));
  const lateSse = await late('late for the stream');
  await send({ name: 'pageview', id: 'after-late-sse' }, '10.0.0.4');
  for (let i = 0; i < 100 && !/Accepted/.test(text.split(`id: ${lateSse}`)[1] ?? ''); i++)
    await new Promise((r) => setTimeout(r, 20));
  controller.abort();
  await read;
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
  t.ok(ids.includes(lateSse), 'the stream sends the late line');
  t.same(
    ids,
    [...ids].sort((a, b) => (BigInt(a!) < BigInt(b!) ? -1 : 1)),
    'in id order',
  );
});

t.test(
  'a job writes one line in every project, however many there are (a chunk of projects a statement)',
  async (t) => {
    const { sql } = s.loupe.services;
    const many = Array.from({ length: 450 }, (_, i) => ({
      id: `many-${String(i).padStart(3, '0')}`,
      name: `many ${i}`,
      visibility: 'private',
    }));
    for (const p of many) await createProject(sql, p as Parameters<typeof createProject>[1]);
    const [{ before }] = await sql<{ before: string }[]>`select coalesce(max(id), 0)::text as before from logs`;
    const run = await s.request('POST', '/v2/admin/jobs/logs', { token: 'cron-secret-for-tests-0123456789' });
    t.equal(run.status, 200);
    const [{ projects, lines }] = await sql<{ projects: number; lines: number }[]>`
    select (select count(*)::int from projects) as projects,
      (select count(distinct project_id)::int from logs where id > ${before}::bigint and message = 'Job logs ran') as lines`;
    t.equal(lines, projects, 'every project has the line');
    await sql`delete from projects where id like 'many-%'`;
  },
);

t.test('SSE resumed from far behind streams every line, paging through the history', async (t) => {
  const from = (await logs()).body.nextCursor as string;
  // 2,500 lines after the cursor: more than the actor's ring holds and than one page of history.
  const rows = Array.from({ length: 2_500 }, (_, i) => ({
    project_id: 'site',
    level: 'info',
    kind: 'pipeline',
    source: 'engine',
    message: `backlog ${i}`,
  }));
  await s.loupe.services.sql`insert into logs ${s.loupe.services.sql(rows)}`;
  const controller = new AbortController();
  const res = await fetch(`${s.url}/v2/projects/site/logs?kind=pipeline`, {
    headers: { cookie: analyst.cookie, accept: 'text/event-stream', 'last-event-id': from },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !text.includes('backlog 2499'))
    text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  const messages = [...text.matchAll(/"message":"backlog (\d+)"/g)].map((m) => Number(m[1]));
  t.equal(messages.length, 2_500, 'all of them');
  t.ok(
    messages.every((n, i) => n === i),
    'once each, in order',
  );
});

t.test('a 19-digit cursor past the largest line id waits like any other', async (t) => {
  const huge = '9999999999999999999';
  const poll = await fetch(`${s.url}/v2/projects/site/logs?after=${huge}`, {
    headers: { cookie: analyst.cookie },
    signal: AbortSignal.timeout(500),
  }).then(
    (r) => r.status,
    (err: Error) => err.name,
  );
  t.equal(poll, 'TimeoutError', 'the long-poll waits for a newer line (none can come), it does not fail');
  const controller = new AbortController();
  const sse = await fetch(`${s.url}/v2/projects/site/logs`, {
    headers: { cookie: analyst.cookie, accept: 'text/event-stream', 'last-event-id': huge },
    signal: controller.signal,
  });
  t.equal(sse.status, 200);
  const { value } = await sse.body!.getReader().read();
  t.match(new TextDecoder().decode(value), /^retry: \d+/, 'the stream opens');
  controller.abort();
});

t.test('the stream keeps seven days', async (t) => {
  const sql = s.loupe.services.sql;
  await sql`insert into logs (project_id, ts, level, kind, source, message) values ('site', now() - interval '8 days', 'info', 'pipeline', 'engine', 'eight days old')`;
  t.equal(
    (await logs('?q=eight%20days')).body.data.length,
    0,
    'an older line is not served, even before the logs job deletes it',
  );
});

t.test('without a cursor, the newest 100 lines, oldest first', async (t) => {
  const bad = Array.from({ length: 120 }, (_, i) => ({ id: `many-${i}`, name: '' }));
  t.equal((await send({ events: bad }, '10.0.0.9')).body.rejected.length, 120);
  const res = await logs();
  const ids = (res.body.data as { id: string }[]).map((l) => l.id);
  t.equal(ids.length, 100, 'a hundred of the 121 new lines');
  const newest = await s.loupe.services.sql<
    { id: string }[]
  >`select id::text from logs where project_id = 'site' order by logs.id desc limit 100`;
  t.same(ids, newest.map((r) => r.id).reverse(), 'the newest hundred, oldest first');
  t.equal(res.body.nextCursor, ids.at(-1), 'the cursor to go on from');
});

t.test(
  'an idle stream: the long-poll answers an empty page after 25 s, and SSE sends heartbeats meanwhile',
  async (t) => {
    const cursor = (await logs()).body.nextCursor as string;
    const controller = new AbortController();
    const sse = await fetch(`${s.url}/v2/projects/site/logs?after=${cursor}`, {
      headers: { cookie: analyst.cookie, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const reader = sse.body!.getReader();
    let text = '';
    const pinged = (async () => {
      while (!/^: ping$/m.test(text)) {
        const { value, done } = await reader.read();
        if (done) return false;
        text += new TextDecoder().decode(value);
      }
      return true;
    })();
    const started = performance.now();
    const res = await logs(`?after=${cursor}`);
    const waited = performance.now() - started;
    t.equal(res.status, 200);
    t.same(res.body, { data: [], nextCursor: cursor }, 'an empty page, the same cursor to go on from');
    t.ok(waited >= 24_500 && waited < 30_000, `answered after ${(waited / 1000).toFixed(1)} s`);
    t.ok(await pinged, 'a heartbeat comment on the idle stream');
    t.notMatch(text, /^id: /m, 'and no line');
    controller.abort();
  },
);

// Errors become issues over HTTP: every fixture stack (V8, Firefox, Safari; hashed file names;
// minified names) lands in the issue its group names; bot and localhost errors open none; the lifecycle
// through PATCH (machine-decided, 409 when impossible, regressions); an issue's events with parsed data.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { startTestServer } from '../support/server.ts';

type Fixture = { engine: string; group: string; type: string; message: string; stack: string };
const fixtures = (
  JSON.parse(readFileSync(new URL('../fixtures/stacks.json', import.meta.url), 'utf8')) as { errors: Fixture[] }
).errors;

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const owner = await s.member('owner');
const viewer = await s.member('viewer', ['site']);
const sql = s.loupe.services.sql;
const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let n = 0;
const error = (f: Pick<Fixture, 'type' | 'message' | 'stack'>, extra: Record<string, unknown> = {}) => ({
  id: `err${++n}`,
  name: 'error',
  visitor: `v${n % 3}`,
  release: '1.0.0',
  page: { url: 'https://shop.example.com/cart' },
  props: {
    type: f.type,
    message: f.message,
    stack: f.stack,
    level: 'error',
    breadcrumbs: `${Date.now() - 1000} navigation /cart\n${Date.now() - 500} fetch 404 https://shop.example.com/api/price`,
  },
  ...extra,
});
const send = (events: unknown[], ua = chrome) =>
  s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events }, headers: { 'user-agent': ua } });

t.test('every fixture stack lands in the issue its group names', async (t) => {
  const res = await send(fixtures.map((f) => error(f)));
  t.equal(res.body.accepted, fixtures.length);
  const rows = await sql<
    { id: string; issue_id: string | null }[]
  >`select id, issue_id from events where project_id = 'site' and name = 'error' order by id`;
  const issueOf = new Map(rows.map((r) => [r.id, r.issue_id]));
  const byGroup = new Map<string, Set<string | null>>();
  fixtures.forEach((f, i) => {
    const set = byGroup.get(f.group) ?? new Set();
    set.add(issueOf.get(`err${i + 1}`) ?? null);
    byGroup.set(f.group, set);
  });
  for (const [group, ids] of byGroup) {
    t.equal(ids.size, 1, `${group}: one issue`);
    t.notOk(ids.has(null), `${group}: has an issue`);
  }
  const distinct = new Set([...byGroup.values()].map((ids) => [...ids][0]));
  t.equal(distinct.size, byGroup.size, 'different groups, different issues');
  const list = await s.request('GET', '/v2/projects/site/issues?limit=100');
  t.equal(list.body.data.length, byGroup.size);
  const cart = list.body.data.find(
    (i: { count: number; title: string }) => /reading 'price'/.test(i.title) && i.count === 3,
  );
  t.match(cart, {
    level: 'error',
    status: 'open',
    isRegression: false,
    firstRelease: '1.0.0',
    lastRelease: '1.0.0',
    resolvedAt: null,
    culprit: /renderCart/,
  });
  // Fixture i was sent by visitor v((i + 1) % 3): the cart issue's visitors are those of its group's fixtures.
  const cartGroup = fixtures.find((f) => /reading 'price'/.test(f.message))!.group;
  const cartVisitors = new Set(fixtures.flatMap((f, i) => (f.group === cartGroup ? [`v${(i + 1) % 3}`] : [])));
  t.equal(cart.visitors, cartVisitors.size, `distinct visitors (${[...cartVisitors].join(', ')})`);
});

t.test('bot and localhost errors are stored but open no issue', async (t) => {
  const f = {
    type: 'Error',
    message: 'only from bots',
    stack: 'Error: only from bots\n    at go (https://shop.example.com/a.js:1:1)',
  };
  await send([error(f)], 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
  await send([error({ ...f, message: 'only on localhost' }, { page: { url: 'http://localhost:3000/' } })]);
  const stored =
    await sql`select issue_id from events where project_id = 'site' and props->>'message' in ('only from bots', 'only on localhost')`;
  t.equal(stored.length, 2, 'stored');
  t.ok(
    stored.every((r) => r.issue_id === null),
    'no issue',
  );
  const [{ count }] =
    await sql`select count(*)::int as count from issues where project_id = 'site' and title like 'only %'`;
  t.equal(count, 0);
});

t.test('first and last release follow event time, not the order occurrences arrive in', async (t) => {
  const f = {
    type: 'Error',
    message: 'late',
    stack: 'Error: late\n    at pay (https://shop.example.com/assets/pay-9f8e7d6c.js:1:1)',
  };
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const issue = async () =>
    (await s.request('GET', '/v2/projects/site/issues?limit=100')).body.data.find(
      (i: { title: string }) => i.title === 'Error: late',
    );
  await send([error(f, { release: '2.0.0', ts: at(10) })]);
  await send([error(f, { release: '1.0.0', ts: at(60) })]); // from an offline queue: older than the first
  t.match(
    await issue(),
    { count: 2, firstRelease: '1.0.0', lastRelease: '2.0.0' },
    'an older occurrence brings the first release',
  );
  await send([error(f, { release: '1.5.0', ts: at(30) })]);
  t.match(await issue(), { count: 3, firstRelease: '1.0.0', lastRelease: '2.0.0' }, 'one between them changes neither');
  await send([error(f, { release: undefined, ts: at(1) })]);
  t.match(
    await issue(),
    { count: 4, firstRelease: '1.0.0', lastRelease: '2.0.0' },
    'a latest occurrence without a release keeps the last one',
  );
  await send([error(f, { release: '2.1.0', ts: at(0.5) })]);
  t.match(await issue(), { count: 5, lastRelease: '2.1.0' }, 'a newer one with a release moves it');
  const g = {
    type: 'Error',
    message: 'grouped',
    stack: 'Error: grouped\n    at ship (https://shop.example.com/assets/ship-1a2b3c4d.js:1:1)',
  };
  const grouped = async () =>
    (await s.request('GET', '/v2/projects/site/issues?limit=100')).body.data.find(
      (i: { title: string }) => i.title === 'Error: grouped',
    );
  await send([
    error(g, { release: undefined, ts: at(50) }),
    error(g, { release: '1.0.0', ts: at(40) }),
    error(g, { release: undefined, ts: at(20) }),
  ]);
  t.match(
    await grouped(),
    { count: 3, firstRelease: '1.0.0', lastRelease: '1.0.0' },
    'in one batch: the earliest and latest occurrence with a release',
  );
  await send([error(g, { release: '1.1.0', ts: at(10) })]);
  t.match(
    await grouped(),
    { count: 4, firstRelease: '1.0.0', lastRelease: '1.1.0' },
    'the same as had they come one by one',
  );
});

t.test(
  'two occurrences in one batch at the same arrival time: the last release is the later one in the batch',
  async (t) => {
    const f = {
      type: 'Error',
      message: 'tied',
      stack: 'Error: tied\n    at tie (https://shop.example.com/assets/tie-5e6f7a8b.js:1:1)',
    };
    // No ts: both take the request's arrival time, so only their order in the batch tells them apart.
    await send([error(f, { release: '3.0.0' }), error(f, { release: '3.1.0' })]);
    const list = await s.request('GET', '/v2/projects/site/issues?limit=100');
    t.match(
      list.body.data.find((i: { title: string }) => i.title === 'Error: tied'),
      { count: 2, firstRelease: '3.0.0', lastRelease: '3.1.0' },
    );
  },
);

t.test('the lifecycle over PATCH', async (t) => {
  const f = {
    type: 'Error',
    message: 'lifecycle',
    stack: 'Error: lifecycle\n    at checkout (https://shop.example.com/assets/app-1a2b3c4d.js:1:1)',
  };
  await send([error(f)]);
  const id = (await s.request('GET', '/v2/projects/site/issues')).body.data.find(
    (i: { title: string }) => i.title === 'Error: lifecycle',
  ).id;
  const patch = (status: string, c: object = owner) =>
    s.request('PATCH', `/v2/projects/site/issues/${id}`, { ...c, body: { status } });

  t.equal((await patch('resolved', {})).status, 401, 'signed out on a public project');
  t.equal((await patch('resolved', viewer)).status, 403, 'a viewer cannot change issues');
  const resolved = await patch('resolved');
  t.equal(resolved.status, 200);
  t.match(resolved.body.data, { id, status: 'resolved', resolvedAt: String });
  const again = await patch('resolved');
  t.equal(again.status, 409, 'resolving a resolved issue is impossible');
  t.match(again.body.error, { code: 'CONFLICT', message: /already resolved/ });

  await send([error(f, { release: '1.1.0' })]);
  const regressed = (await s.request('GET', '/v2/projects/site/issues?status=open')).body.data.find(
    (i: { id: string }) => i.id === id,
  );
  t.match(
    regressed,
    { status: 'open', isRegression: true, resolvedAt: null, count: 2, firstRelease: '1.0.0', lastRelease: '1.1.0' },
    'a new occurrence reopens it as a regression',
  );

  t.equal((await patch('ignored')).body.data.status, 'ignored');
  await send([error(f)]);
  const ignored = (await s.request('GET', '/v2/projects/site/issues?status=ignored')).body.data.find(
    (i: { id: string }) => i.id === id,
  );
  t.match(ignored, { status: 'ignored', count: 3 }, 'an ignored issue stays ignored and still counts');
  t.equal((await patch('resolved')).status, 409, 'ignored → resolved: reopen first');
  t.equal((await patch('open')).body.data.status, 'open');
  t.equal((await patch('closed')).status, 400);
  t.equal(
    (await s.request('PATCH', '/v2/projects/site/issues/iss_nope', { ...owner, body: { status: 'resolved' } })).status,
    404,
  );
});

t.test("an issue's events: newest first, parsed stack and breadcrumbs, device", async (t) => {
  const cart = (await s.request('GET', '/v2/projects/site/issues?limit=100')).body.data.find(
    (i: { count: number; title: string }) => /reading 'price'/.test(i.title) && i.count === 3,
  );
  const page1 = await s.request('GET', `/v2/projects/site/issues/${cart.id}/events?limit=2`);
  t.equal(page1.body.data.length, 2);
  t.type(page1.body.nextCursor, 'string');
  const page2 = await s.request(
    'GET',
    `/v2/projects/site/issues/${cart.id}/events?limit=2&cursor=${page1.body.nextCursor}`,
  );
  t.equal(page2.body.data.length, 1);
  t.equal(page2.body.nextCursor, null);
  const ev = page1.body.data[0];
  t.ok(Date.parse(ev.ts) >= Date.parse(page1.body.data[1].ts), 'newest first');
  t.match(ev, { release: '1.0.0', environment: 'production', page: { path: '/cart' }, error: { type: 'TypeError' } });
  t.ok(ev.error.stack.length >= 1);
  t.match(ev.error.stack[0], { file: String, line: Number, column: Number, inApp: Boolean });
  t.same(
    ev.breadcrumbs.map((b: { kind: string }) => b.kind),
    ['navigation', 'fetch'],
  );
  t.match(ev.breadcrumbs[1], { ts: String, message: '404 https://shop.example.com/api/price' });
  t.match(ev.device, {
    type: 'desktop',
    browser: 'Chrome',
    os: 'Windows',
    screen: null,
    viewport: null,
    language: null,
    connection: null,
  });
  t.equal((await s.request('GET', `/v2/projects/site/issues/${cart.id}/events?cursor=garbage`)).status, 400);
});

t.test('the list: most recently seen first, in cursor pages, each status alone', async (t) => {
  const listing = await s.project('listing');
  const hour = 3_600_000;
  const names = ['oldest', 'older', 'newer', 'newest'];
  const res = await s.request('POST', '/v2/ingest', {
    token: listing.secretKey,
    headers: { 'user-agent': chrome },
    body: {
      events: names.map((name, i) =>
        error(
          {
            type: 'Error',
            message: `list ${name}`,
            stack: `Error: list ${name}\n    at ${name}Handler (https://shop.example.com/assets/${name}.js:1:1)`,
          },
          { ts: new Date(Date.now() - (names.length - i) * hour).toISOString() },
        ),
      ),
    },
  });
  t.equal(res.body.accepted, 4);
  const list = async (query: string) => (await s.request('GET', `/v2/projects/listing/issues${query}`, owner)).body;
  const titles = (page: { data: { title: string }[] }) => page.data.map((i) => i.title.replace('Error: list ', ''));
  const all = await list('');
  t.same(titles(all), ['newest', 'newer', 'older', 'oldest'], 'most recently seen first');
  const ids = new Map(all.data.map((i: { id: string; title: string }) => [i.title.replace('Error: list ', ''), i.id]));

  const first = await list('?limit=3');
  t.same(titles(first), ['newest', 'newer', 'older']);
  t.type(first.nextCursor, 'string', 'a cursor while more remain');
  const second = await list(`?limit=3&cursor=${first.nextCursor}`);
  t.same(titles(second), ['oldest'], 'the next page goes on where the first ended');
  t.equal(second.nextCursor, null, 'no cursor on the last page');
  t.equal((await list('?limit=4')).nextCursor, null, 'nor on a last page that is exactly full');

  const patch = (name: string, status: string) =>
    s.request('PATCH', `/v2/projects/listing/issues/${ids.get(name)}`, { ...owner, body: { status } });
  t.equal((await patch('newer', 'resolved')).status, 200);
  t.equal((await patch('oldest', 'ignored')).status, 200);
  t.same(titles(await list('?status=open')), ['newest', 'older'], 'open alone');
  t.same(titles(await list('?status=resolved')), ['newer'], 'resolved alone');
  t.same(titles(await list('?status=ignored')), ['oldest'], 'ignored alone');
  t.equal(
    (await s.request('GET', '/v2/projects/listing/issues?status=closed', owner)).status,
    400,
    'an unknown status',
  );

  const minute = 60_000;
  const again = [30, 10, 20].map((ago) =>
    error(
      {
        type: 'Error',
        message: 'list newest',
        stack: 'Error: list newest\n    at newestHandler (https://shop.example.com/assets/newest.js:1:1)',
      },
      { id: `again-${ago}`, ts: new Date(Date.now() - ago * minute).toISOString() },
    ),
  );
  t.equal(
    (
      await s.request('POST', '/v2/ingest', {
        token: listing.secretKey,
        headers: { 'user-agent': chrome },
        body: { events: again },
      })
    ).body.accepted,
    3,
  );
  const events = `/v2/projects/listing/issues/${ids.get('newest')}/events`;
  const one = (await s.request('GET', `${events}?limit=2`, owner)).body;
  const two = (await s.request('GET', `${events}?limit=2&cursor=${one.nextCursor}`, owner)).body;
  const seen = [...one.data, ...two.data] as { id: string; ts: string }[];
  t.same(
    seen.slice(0, 3).map((e) => e.id),
    ['again-10', 'again-20', 'again-30'],
    'its events newest first, whatever order they were sent in',
  );
  t.equal(seen.length, 4, 'and the first occurrence, an hour old, last');
  t.ok(
    seen.every((e, i) => i === 0 || Date.parse(e.ts) < Date.parse(seen[i - 1]!.ts)),
    'times strictly falling',
  );
});

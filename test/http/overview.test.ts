// The overview: every member of the spec, from today's traffic; cached for ten seconds per project;
// rate-limited requests counted.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const send = (events: unknown[], ua = chrome) =>
  s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events }, headers: { 'user-agent': ua } });
const pv = (id: string, visitor: string, path: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: 'pageview',
  visitor,
  release: '2.0.0',
  page: { url: `https://site.example.com${path}` },
  context: { ip: '81.2.69.142' },
  ...extra,
});

t.test('every member, from today', async (t) => {
  await send([
    pv('a1', 'a', '/'),
    pv('a2', 'a', '/pricing'),
    pv('b1', 'b', '/', {
      page: { url: 'https://site.example.com/', referrer: 'https://www.google.com/' },
      context: { ip: '8.8.8.8' },
    }),
    {
      id: 'e1',
      name: 'error',
      visitor: 'b',
      release: '2.0.0',
      page: { url: 'https://site.example.com/' },
      props: {
        type: 'TypeError',
        message: 'x is undefined',
        stack: 'TypeError: x is undefined\n    at go (https://site.example.com/a.js:1:1)',
      },
    },
    { id: 's1', name: 'speed', visitor: 'a', page: { path: '/' }, vitals: { lcp: 1000, ttfb: 100 } },
    { id: 's2', name: 'speed', visitor: 'b', page: { path: '/' }, vitals: { lcp: 3000, ttfb: 300 } },
  ]);
  await send([pv('bot1', 'crawler', '/')], 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
  await send([pv('dup', 'a', '/'), pv('dup', 'a', '/')]);
  const res = await s.request('GET', '/v2/projects/site/overview');
  t.equal(res.status, 200);
  const o = res.body.data;
  t.equal(o.online, 2, 'a and b (the crawler is not human)');
  t.equal(o.viewsPerMinute.length, 10);
  t.ok(o.viewsPerMinute.every((n: number) => Number.isInteger(n)));
  // The sends can straddle a minute boundary, so the last two minutes hold all four between them.
  t.equal(
    o.viewsPerMinute.at(-2) + o.viewsPerMinute.at(-1),
    4,
    'human pageviews of the last two minutes (a1, a2, b1, dup)',
  );
  t.equal(
    o.viewsPerMinute.reduce((a: number, n: number) => a + n, 0),
    4,
    'nothing earlier in the window',
  );
  t.match(o.today, { visitors: 2, pageviews: 4, bounceRate: 0.5 });
  t.type(o.today.avgSessionSeconds, 'number');
  t.same(o.ingest.last24h, { accepted: 8, duplicates: 1, rejected: 0, rateLimited: 0 });
  t.ok(o.bots.share > 0 && o.bots.share < 1, 'a share of events from bots');
  t.match(o.bots, { headless: 0, webdriver: 0, datacenterAsn: Number });
  t.equal(o.speed.lcp, 3000, 'p75 of 1000 and 3000: the nearest rank, as every speed read');
  t.equal(o.speed.ttfb, 300);
  t.match(o.errors, { last30m: 1, openIssues: 1 });
  t.same(o.topPages[0], { path: '/', views: 3 });
  t.same(o.referrers.map((r: { name: string }) => r.name).sort(), ['Direct', 'google.com']);
  t.equal(
    o.countries.reduce((a: number, c: { share: number }) => a + c.share, 0),
    1,
  );
  t.match(o.release, { current: '2.0.0', deployedAt: String, newIssuesSince: 1 });
});

t.test('cached for ten seconds', async (t) => {
  const before = (await s.request('GET', '/v2/projects/site/overview')).body.data.today.pageviews;
  await send([pv('later', 'c', '/new')]);
  const after = (await s.request('GET', '/v2/projects/site/overview')).body.data.today.pageviews;
  t.equal(after, before, 'the cached answer');
  const other = await s.project('other', 'public');
  await s.request('POST', '/v2/ingest', {
    token: other.secretKey,
    body: { events: [pv('o1', 'o', '/')] },
    headers: { 'user-agent': chrome },
  });
  t.equal(
    (await s.request('GET', '/v2/projects/other/overview')).body.data.today.pageviews,
    1,
    "another project's overview is its own",
  );
  await new Promise((r) => setTimeout(r, 10_100));
  const expired = (await s.request('GET', '/v2/projects/site/overview')).body.data.today.pageviews;
  t.equal(expired, before + 1, 'read again once ten seconds have passed');
});

t.test('rate-limited requests are counted in ingest.last24h', async (t) => {
  const limited = await startTestServer({
    ingestRate: { capacity: 1, refillPerSecond: 0.001 },
    ingestSecretRate: { capacity: 1, refillPerSecond: 0.001 },
  });
  t.teardown(() => limited.close());
  const p = await limited.project('limited', 'public');
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await limited.request('POST', '/v2/ingest', {
      token: p.secretKey,
      body: { events: [pv(`l${i}`, 'l', '/')] },
      headers: { 'user-agent': chrome },
    });
    statuses.push(res.status);
  }
  t.same(statuses, [202, 429, 429], 'a bucket of one');
  // A 429 is answered at once; its log line and count follow in the project's next flush (a few ms).
  const lines = () =>
    limited.loupe.services.sql<
      { n: number }[]
    >`select count(*)::int as n from logs where project_id = 'limited' and message like 'Rate limited%'`;
  for (const deadline = Date.now() + 5_000; (await lines())[0]!.n < 2 && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 20));
  const o = (await limited.request('GET', '/v2/projects/limited/overview')).body.data;
  t.same(o.ingest.last24h, { accepted: 1, duplicates: 0, rejected: 0, rateLimited: 2 });

  // A project of the same id in this second app: its overview is its own, not the first app's cached one.
  await limited.project('site', 'public');
  t.equal(
    (await limited.request('GET', '/v2/projects/site/overview')).body.data.today.pageviews,
    0,
    'each app caches its own overviews',
  );
  t.ok((await s.request('GET', '/v2/projects/site/overview')).body.data.today.pageviews > 0);
});

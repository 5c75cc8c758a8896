// The server SDK end to end: a real node:http site records a pageview for each incoming request with
// createLoupe and the project's secret key, against the real Loupe server. What Loupe stored must carry
// each visitor's own user agent and forwarded IP (browser, geo), and only the request that brought an
// owner's session cookie is internal traffic.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createLoupe, type Tracked } from '../../src/sdk/server/index.ts';
import { startTestServer } from '../support/server.ts';

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const s = await startTestServer();
const project = await s.project('shop');
const owner = await s.member('owner');
const analyst = await s.member('analyst', ['shop']);
const sql = s.loupe.services.sql;

const failures: unknown[] = [];
const loupe = createLoupe({
  secretKey: project.secretKey,
  host: s.url,
  flushIntervalMs: 60_000,
  release: '2.0.0',
  onError: (f) => void failures.push(f),
});
const tracked: Tracked[] = [];
const app = createServer((req: IncomingMessage, res: ServerResponse) => {
  tracked.push(
    loupe.pageview({ url: new URL(req.url ?? '/', 'https://shop.example').href, title: 'Shop', request: req }),
  );
  res.writeHead(200, { 'content-type': 'text/plain' }).end('welcome');
});
await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
t.teardown(async () => {
  await loupe.shutdown();
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
  await s.close();
});

type Row = {
  path: string;
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
  city: string | null;
  is_internal: boolean;
  is_localhost: boolean;
  release: string | null;
  visitor_id: string;
};

t.test("visitors' requests to a Node site arrive in Loupe with their agent, geo and internal flag", async (t) => {
  const visits: { path: string; headers: Record<string, string> }[] = [
    { path: '/', headers: { 'user-agent': FIREFOX_WINDOWS, 'x-forwarded-for': '81.2.69.142, 10.0.0.2' } },
    {
      path: '/pricing?plan=pro',
      headers: { 'user-agent': SAFARI_IPHONE, 'x-forwarded-for': '89.160.20.112', cookie: 'theme=dark' },
    },
    {
      path: '/admin',
      headers: {
        'user-agent': CHROME_MAC,
        'x-forwarded-for': '2.125.160.216',
        cookie: `theme=dark; ${owner.cookie}; cart=3`,
      },
    },
    { path: '/local', headers: { 'user-agent': FIREFOX_WINDOWS } }, // no proxy header: the socket's loopback address
  ];
  for (const visit of visits) {
    const res = await fetch(appUrl + visit.path, { headers: visit.headers });
    t.equal(res.status, 200, `the site answered ${visit.path}`);
  }
  await loupe.flush();
  t.same(failures, [], 'Loupe accepted every batch');
  t.ok(tracked.length === 4 && tracked.every((r) => r.ok), 'four pageviews queued');

  const rows = await sql<Row[]>`
    select path, browser, os, device, country, city, is_internal, is_localhost, release, visitor_id
    from events where project_id = 'shop' and name = 'pageview' order by ts, path`;
  const byPath = (path: string) => rows.find((r) => r.path === path);
  t.equal(rows.length, 4, 'four pageviews stored');
  t.match(
    byPath('/'),
    {
      browser: 'Firefox',
      os: 'Windows',
      device: 'desktop',
      country: 'GB',
      city: 'London',
      is_internal: false,
      release: '2.0.0',
    },
    "the first hop of X-Forwarded-For and the visitor's agent, not the SDK's",
  );
  t.match(
    byPath('/pricing'),
    { browser: 'Safari', os: 'iOS', device: 'mobile', country: 'SE', city: 'Stockholm', is_internal: false },
    'a cookie that is not the session cookie changes nothing',
  );
  t.match(
    byPath('/admin'),
    { browser: 'Chrome', os: 'macOS', country: 'GB', city: 'Bugle', is_internal: true },
    "the owner's session cookie marks the visit internal",
  );
  t.match(
    byPath('/local'),
    { browser: 'Firefox', country: null, is_internal: false },
    'without X-Forwarded-For the loopback socket address has no geo',
  );
  t.ok(
    rows.every((r) => !r.is_localhost),
    'the page URL is the public site',
  );
  t.equal(new Set(rows.map((r) => r.visitor_id)).size, 4, 'one visitor per agent and IP');

  const internal = await s.request('GET', `/v2/projects/shop/visitors/${byPath('/admin')?.visitor_id}`, {
    cookie: analyst.cookie,
  });
  t.match(
    internal.body?.data,
    { isInternal: true, pageviews: 1, geo: { country: 'GB' }, device: { browser: 'Chrome', os: 'macOS' } },
    'GET visitor: the owner is an internal visitor',
  );
  const outside = await s.request('GET', `/v2/projects/shop/visitors/${byPath('/')?.visitor_id}`, {
    cookie: analyst.cookie,
  });
  t.match(outside.body?.data, {
    isInternal: false,
    geo: { country: 'GB', city: 'London' },
    device: { browser: 'Firefox' },
  });
});

// Sign-in in real headless Chromium against a real OpenID Connect provider (oidc-provider on loopback):
// a dashboard on its own origin (DASHBOARD_ORIGIN) sends the browser to /v2/auth/signin, the provider
// signs the member in, the browser lands back on the dashboard, which reads /v2/auth/session with
// credentials, deletes a project as the owner, and signs out. A page of the same site on another port
// cannot ride the cookie (403), and the member's cookie on an ingest through a site's proxy path marks the
// visit internal. Needs /usr/bin/chromium.
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { chromium, type Browser } from 'playwright-core';
import { createProxyHandler } from '../../src/sdk/server/proxy.ts';
import { startIdentityProvider } from '../support/identity-provider.ts';
import { startTestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`);
}

const idp = await startIdentityProvider();
const dashboard = await startPages();
const s = await startTestServer({
  oidcIssuer: idp.issuer,
  oauthClientId: idp.clientId,
  oauthClientSecret: idp.clientSecret,
  dashboardOrigin: dashboard.url,
});
idp.register(`${s.url}/v2/auth/callback`);
dashboard.api = s.url;
const evil = await startPages(); // the same site (127.0.0.1), another origin
evil.api = s.url;
const site = await s.project('site');
await s.project('doomed');
await s.member('owner'); // someone else stays owner
const owner = await s.member('owner');
await s.request('POST', '/v2/members', {
  ...owner,
  headers: { origin: dashboard.url },
  body: { login: 'olivia', role: 'owner' },
});
dashboard.publicKey = site.publicKey;

const browser: Browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
t.teardown(async () => {
  await browser.close();
  await Promise.all([dashboard.close(), evil.close()]);
  await s.close();
  await idp.close();
});
const sql = s.loupe.services.sql;

t.test('sign in, land on the redirect, read the session, delete a project, sign out', async (t) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  idp.next = { login: 'olivia', claims: { preferred_username: 'olivia', name: 'Olivia Owner' } };
  await page.goto(`${s.url}/v2/auth/signin?redirect=${encodeURIComponent(`${dashboard.url}/app?tab=1`)}`);
  await page.waitForURL(`${dashboard.url}/app?tab=1`);
  t.pass('landed on the redirect, on the dashboard');

  const cookie = (await context.cookies(s.url)).find((c) => c.name === 'loupe.session_token');
  t.match(cookie, { httpOnly: true, sameSite: 'Lax', path: '/' }, 'the session cookie');
  t.notOk(
    (await context.cookies(s.url)).some((c) => c.name === 'loupe.signin_flow'),
    'no flow cookie left',
  );

  const session = await page.evaluate(() => (window as any).loupeCall('GET', '/v2/auth/session'));
  t.match(session, {
    status: 200,
    body: {
      user: { login: 'olivia', name: 'Olivia Owner' },
      role: 'owner',
      isAdmin: true,
      session: { expiresAt: String },
    },
  });

  // A page on another origin of the same site gets the cookie sent along, and is refused.
  const other = await context.newPage();
  await other.goto(`${evil.url}/attack`);
  await other.waitForLoadState('load');
  await other.click('#go');
  await other.waitForLoadState('load');
  t.match(await other.textContent('body'), /FORBIDDEN/, 'a cross-origin form post with the cookie: 403');
  t.match(
    await page.evaluate(() => (window as any).loupeCall('GET', '/v2/auth/session')),
    { body: { role: 'owner' } },
    'still signed in',
  );

  const deleted = await page.evaluate(() => (window as any).loupeCall('DELETE', '/v2/projects/doomed'));
  t.same(deleted, { status: 200, body: { data: { id: 'doomed', deleted: true } } }, 'the owner deletes a project');
  t.equal((await sql`select id from projects where id = 'doomed'`).length, 0);

  const out = await page.evaluate(() => (window as any).loupeCall('POST', '/v2/auth/signout'));
  t.same(out, { status: 200, body: { signedOut: true } });
  t.same(
    (await page.evaluate(() => (window as any).loupeCall('GET', '/v2/auth/session'))).body,
    { user: null, session: null, role: null, isAdmin: false },
    'signed out',
  );
  t.notOk(
    (await context.cookies(s.url)).some((c) => c.name === 'loupe.session_token'),
    'the cookie is gone',
  );
  await context.close();
});

t.test("a member's cookie on an ingest through the site's proxy marks the visit internal", async (t) => {
  const visit = async (signedIn: boolean) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (signedIn) {
      idp.next = { login: 'olivia' };
      await page.goto(`${s.url}/v2/auth/signin?redirect=${encodeURIComponent(`${dashboard.url}/app`)}`);
      await page.waitForURL(`${dashboard.url}/app`);
    }
    await page.goto(`${dashboard.url}/shop?who=${signedIn ? 'member' : 'stranger'}`);
    await page.waitForFunction(() => (window as any).sent === true);
    await context.close();
  };
  await visit(true);
  await visit(false);
  const deadline = Date.now() + 15_000;
  let rows: { query: string; is_internal: boolean }[] = [];
  while (Date.now() < deadline) {
    rows = await sql<{ query: string; is_internal: boolean }[]>`
      select props->>'who' as query, is_internal from events
      where project_id = 'site' and name = 'visit' order by query`;
    if (rows.length === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.same(rows, [
    { query: 'member', is_internal: true },
    { query: 'stranger', is_internal: false },
  ]);
});

type Pages = { url: string; api: string; publicKey: string; close: () => Promise<void> };

/** The dashboard (a page that calls the API with credentials) and a shop whose proxy path forwards to Loupe. */
async function startPages(): Promise<Pages> {
  const pages: Pages = { url: '', api: '', publicKey: '', close: async () => {} };
  const proxy = (req: Request) => createProxyHandler({ host: pages.api, pathPrefix: '/_loupe' })(req);
  const server = createServer((req, res) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path.startsWith('/_loupe/')) return forward(req, res, proxy);
    const html = (body: string) =>
      void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body);
    if (path === '/app')
      return html(`<!doctype html><title>Dashboard</title><p>Dashboard</p><script>
        window.loupeCall = async (method, path) => {
          const res = await fetch(${JSON.stringify(pages.api)} + path, { method, credentials: 'include' })
          return { status: res.status, body: await res.json() }
        }</script>`);
    if (path === '/attack')
      return html(`<!doctype html><title>Attack</title><form method="post" action="${pages.api}/v2/auth/signout">
        <button id="go" type="submit">Go</button></form>`);
    if (path === '/shop')
      return html(`<!doctype html><title>Shop</title><p>Shop</p><script type="module">
        const { init } = await import('/_loupe/v2/sdk/loupe.esm.js')
        const client = init({ key: ${JSON.stringify(pages.publicKey)}, proxyPath: '/_loupe', persistence: 'memory', autoPageviews: false })
        client.track('visit', { who: new URLSearchParams(location.search).get('who') })
        await client.flush()
        window.sent = true
      </script>`);
    res.writeHead(404).end();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pages.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pages.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return pages;
}

async function forward(req: IncomingMessage, res: ServerResponse, proxy: (r: Request) => Promise<Response>) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const response = await proxy(
    new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

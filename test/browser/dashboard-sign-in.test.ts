// The dashboard's "Sign in" in real headless Chromium against a real OpenID Connect provider (oidc-provider
// on loopback, showing its login form): an anonymous visitor at / sees the public project only; signing in
// goes through the provider and lands back on /, which then lists the member's projects, a private one
// among them, with the numbers the API gives that member; signing out hides it again. A private project's
// link signs the visitor in from there and lands back on it. Needs /usr/bin/chromium.
import { existsSync } from 'node:fs';
import t from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { count, statText } from '../../src/dashboard/app/format.ts';
import { addMember } from '../../src/db/members.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startIdentityProvider } from '../support/identity-provider.ts';
import { startTestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`);
}
t.setTimeout(120_000);

const idp = await startIdentityProvider();
idp.form = true;
const s = await startTestServer({
  oidcIssuer: idp.issuer,
  oauthClientId: idp.clientId,
  oauthClientSecret: idp.clientSecret,
});
idp.register(`${s.url}/v2/auth/callback`);
const sql = s.loupe.services.sql;
const embedded = !process.env.DATABASE_URL;
await s.project('open', 'public');
await s.project('team');
await s.project('other'); // private, and not the member's
// Events in each, so / lists them rather than opening a lone empty project as on a first start.
for (const [i, id] of ['open', 'team', 'other'].entries())
  await seedProject(sql, { projectId: id, events: 300, days: 20, embedded, seed: 11 + i });
await addMember(sql, { login: 'vera', role: 'viewer', projectIds: ['team'] });
idp.next = { login: 'vera', claims: { preferred_username: 'vera', name: 'Vera Viewer' } };

const browser: Browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
t.teardown(async () => {
  await browser.close();
  await s.close();
  await idp.close();
});

const listed = (page: Page) => page.locator('table.projects tbody th a').allInnerTexts();
const rowCount = (page: Page, n: number) =>
  page.waitForFunction((want) => document.querySelectorAll('table.projects tbody tr').length === want, n, {
    timeout: 15_000,
  });
const sessionFromPage = (page: Page) =>
  page.evaluate(async () => {
    const res = await fetch('/v2/auth/session');
    return { status: res.status, body: await res.json() };
  });

t.test("sign in with the provider from the dashboard; the member's private project appears", async (t) => {
  const consoleErrors: string[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Loupe's pages only: the provider's own page asks for a favicon it does not have.
  page.on('console', (m) => {
    if (m.type() === 'error' && m.location().url.startsWith(s.url))
      consoleErrors.push(`${m.location().url}: ${m.text()}`);
  });
  page.on('pageerror', (e) => void consoleErrors.push(e.message));

  await page.goto(`${s.url}/`);
  await page.waitForSelector('table.projects[data-loaded="true"]');
  t.same(await listed(page), ['open'], 'signed out: the public project only');
  t.equal(
    await page.locator('meta[name="loupe-signin"]').getAttribute('content'),
    '/v2/auth/signin',
    'the server told the page a provider is configured',
  );
  const signIn = page.getByRole('link', { name: 'Sign in', exact: true });
  t.ok(await signIn.isVisible(), 'a Sign in control is shown');

  await signIn.click();
  await page.waitForURL(`${idp.issuer}/interaction/**`);
  t.pass("on the provider's login page");
  await page.getByLabel('Username').fill('vera');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${s.url}/`);
  t.pass('back on the dashboard');

  await page.locator('.who', { hasText: 'Vera Viewer' }).waitFor({ timeout: 15_000 });
  t.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'shown as signed in');
  t.notOk(await signIn.isVisible(), 'no Sign in control any more');
  await rowCount(page, 2);
  t.same((await listed(page)).sort(), ['open', 'team'], "the member's projects: not the other private one");
  await page.waitForSelector('table.projects[data-loaded="true"]');

  const session = await sessionFromPage(page);
  t.match(
    session,
    {
      status: 200,
      body: {
        user: { login: 'vera', name: 'Vera Viewer' },
        role: 'viewer',
        isAdmin: false,
        session: { expiresAt: String },
      },
    },
    'GET /v2/auth/session from the page answers the member',
  );

  // The visitors on screen are the ones the API gives this member's session.
  const cookie = (await context.cookies(s.url)).find((c) => c.name === 'loupe.session_token');
  t.match(cookie, { httpOnly: true, sameSite: 'Lax' }, 'the session cookie');
  const api = await s.request('GET', '/v2/breakdown/project?period=30d&limit=100', {
    cookie: `${cookie!.name}=${cookie!.value}`,
  });
  t.same(api.body.data.map((r: { value: string }) => r.value).sort(), ['open', 'team'], 'the API agrees');
  const team = api.body.data.find((r: { value: string }) => r.value === 'team') as { visitors: number };
  t.ok(team.visitors > 0, 'the private project has visitors in the range');
  const teamRow = page.locator('table.projects tbody tr', { has: page.getByRole('link', { name: 'team' }) });
  t.equal(await teamRow.locator('td').first().innerText(), count(team.visitors), "the private project's visitors");

  // An anonymous visitor still cannot see it.
  const anonymous = await s.request('GET', '/v2/projects');
  t.same(
    anonymous.body.data.map((p: { id: string }) => p.id),
    ['open'],
    'anonymous: the public project only',
  );

  // The private project opens, with its numbers.
  await page.getByRole('link', { name: 'team', exact: true }).click();
  await page.waitForURL('**/p/team');
  await page.waitForSelector('.headline[data-loaded="true"]', { timeout: 15_000 });
  t.pass("the private project's overview loads");

  // Back to the list and sign out there (on the private project's page every read would answer 404).
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Projects' }).click();
  await page.waitForURL(`${s.url}/`);
  await rowCount(page, 2);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
  t.same((await sessionFromPage(page)).body.user, null, 'signed out');
  await rowCount(page, 1);
  t.same(await listed(page), ['open'], 'the private project is gone from the list');

  t.same(consoleErrors, [], 'no console errors');
  await context.close();
});

t.test("a private project's link: the visitor signs in from it and lands back on it", async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Errors by page: before signing in, after it (the provider's page in between is not Loupe's).
  const errors = { anonymous: [] as string[], signedIn: [] as string[], signingOut: [] as string[] };
  let phase: keyof typeof errors | null = 'anonymous';
  page.on('framenavigated', (f) => {
    if (f !== page.mainFrame()) return;
    if (f.url().startsWith(idp.issuer)) phase = null;
    else if (phase === null) phase = 'signedIn';
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && phase) errors[phase].push(m.text());
  });
  page.on('pageerror', (e) => void (phase && errors[phase].push(e.message)));
  await page.goto(`${s.url}/p/team?period=30d`);
  await page.getByRole('alert').first().waitFor();
  t.match(await page.getByRole('alert').first().innerText(), /not found|no project/i, 'anonymous: the API says why');

  await page.getByRole('link', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('Username').fill('vera');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${s.url}/p/team?period=30d`);
  await page.waitForSelector('.headline[data-loaded="true"]', { timeout: 15_000 });
  const api = await s.request('GET', '/v2/projects/team/stats?period=30d', {
    cookie: (await context.cookies(s.url)).map((c) => `${c.name}=${c.value}`).join('; '),
  });
  t.equal(api.status, 200, "the member's session reads it");
  t.equal(
    await page.locator('.stat[data-stat="visitors"] .stat-value').innerText(),
    statText('visitors', api.body.data.visitors.value),
    'back on the project, with its numbers',
  );
  // Signing out here goes to the projects list, rather than leaving a page whose every read answers 404.
  // The page's reads are answered first: one still in flight when the session ends is refused like any other.
  await page.waitForLoadState('networkidle');
  t.same(errors.signedIn, [], 'no console errors once signed in');
  // A live refresh may still start a read as the session ends; the server refuses it (404), and Chromium
  // logs that refusal. Nothing else may show.
  phase = 'signingOut';
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${s.url}/`);
  await page.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
  await rowCount(page, 1);
  t.equal(await page.getByRole('alert').count(), 0, 'signed out on the private page: on / with no refusal shown');
  t.ok(
    errors.anonymous.every((e) => e.includes('status of 404')),
    "before signing in, only the refused reads (404) of a project the visitor can't see",
  );
  t.ok(
    errors.signingOut.every((e) => e.includes('status of 404')),
    'signing out: at most the refusal of a read still in flight',
  );
  await context.close();
});

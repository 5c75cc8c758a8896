// The Settings view in real headless Chromium against a real server: an owner changes every setting and
// the API reads them back; a setting the API refuses shows its message and field; rotating the secret
// key shows the new key once, which then ingests while the old one is refused; a token is created (its
// value shown once and working) and revoked (then refused); members are added, given another role and
// removed, and demoting the last owner shows the API's 409; an admin of one project sees the API's 403
// for tokens; a viewer is told settings are not theirs; axe-core finds no violation. Needs /usr/bin/chromium.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { axe, expectRefused, kit, launch } from './dashboard-kit.ts';

t.setTimeout(300_000);
const s = await startTestServer();
const shop = await s.project('shop');
const owner = await s.member('owner');
const admin = await s.token('admin');
const api = async (path: string) => {
  const res = await s.request('GET', path, { token: admin });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
};

const browser = await launch();
const k = kit(browser, s);
t.teardown(async () => {
  await browser.close();
  await s.close();
});

t.test("an owner changes the project's settings; the API reads them back; a refusal names its field", async (t) => {
  const ctx = await k.context({ cookie: owner.cookie });
  const page = await k.open(ctx, '/p/shop/settings');
  const form = page.locator('form.settings-form');
  await form.waitFor();
  await form.getByLabel('Name').fill('The Shop');
  await form.getByLabel('Visibility').selectOption('public');
  await form.getByLabel(/Public visitor data/).check();
  await form.getByLabel(/Allowed origins/).fill('https://shop.example\nhttps://www.shop.example');
  await form.getByLabel(/Retention/).fill('120');
  await form.getByLabel(/Widget reports/).check();
  await form.getByLabel(/^SQL/).check();
  await form.getByLabel(/Daily salt/).check();
  await form.getByRole('button', { name: 'Save settings' }).click();
  const status = page.locator('.settings-card [role="status"]').first();
  await status.waitFor();
  t.match(await status.innerText(), /Saved: name, visibility, publicVisitorData/);
  const { data } = await api('/v2/projects/shop');
  t.match(
    data,
    {
      name: 'The Shop',
      visibility: 'public',
      publicVisitorData: true,
      allowedOrigins: ['https://shop.example', 'https://www.shop.example'],
      retentionDays: 120,
      widgetReports: true,
      sqlEnabled: true,
      dailySalt: true,
    },
    'the API has every setting',
  );
  await page.locator('#settings-title', { hasText: 'The Shop' }).waitFor();
  t.pass('the page reads the saved settings back');

  await form.getByLabel(/Allowed origins/).fill('not an origin');
  await form.getByRole('button', { name: 'Save settings' }).click();
  const refusal = page.locator('.settings-card .refusal').first();
  await refusal.waitFor();
  t.match(await refusal.innerText(), /allowedOrigins/, 'the field at fault');
  t.ok(expectRefused(k.consoleErrors, 400) === 1, 'the API refused it (400)');
  t.same((await api('/v2/projects/shop')).data.allowedOrigins, data.allowedOrigins, 'nothing changed');
  await form.getByLabel(/Allowed origins/).fill('https://shop.example\nhttps://www.shop.example');

  await axe(t, page, 'the settings view');
  await ctx.close();
});

t.test('rotating the secret key shows the new key once; it ingests and the old one is refused', async (t) => {
  const ctx = await k.context({ cookie: owner.cookie });
  const page = await k.open(ctx, '/p/shop/settings');
  await page.getByRole('button', { name: 'Rotate the secret key' }).click();
  await page.getByRole('button', { name: 'Rotate now' }).click();
  const shown = page.locator('.secret [data-secret]');
  await shown.waitFor();
  const secret = await shown.innerText();
  t.match(secret, /^sk_/, 'the new secret key');
  const ingest = (key: string) =>
    s.request('POST', '/v2/ingest', { token: key, body: { name: 'pageview', visitor: 'v', page: { path: '/' } } });
  t.equal((await ingest(shop.secretKey)).status, 401, 'the old key is refused');
  t.equal((await ingest(secret)).status, 202, 'the new key ingests');
  const hint = (await api('/v2/projects/shop')).data.secretKeyHint;
  await page.locator('[data-key="hint"]', { hasText: hint }).waitFor();
  t.pass("the key's hint on screen is the API's");
  await ctx.close();
});

t.test('a token is created (shown once, and it works) and revoked (then refused)', async (t) => {
  const ctx = await k.context({ cookie: owner.cookie });
  const page = await k.open(ctx, '/p/shop/settings');
  const create = page.getByRole('form', { name: 'New token' });
  await create.getByLabel('Token name').fill('ci reader');
  await create.getByLabel('Scope').selectOption('read');
  await create.getByRole('button', { name: 'Create token' }).click();
  const shown = page.locator('.secret', { hasText: 'ci reader' }).locator('[data-secret]');
  await shown.waitFor();
  const value = await shown.innerText();
  t.match(value, /^at_live_/, 'the value');
  const listed = (await api('/v2/tokens')).data.find((x: { name: string }) => x.name === 'ci reader');
  t.match(listed, { scope: 'read', projectIds: ['shop'] }, 'the API lists it, for this project');
  t.equal((await s.request('GET', '/v2/projects/shop/stats', { token: value })).status, 200, 'the value works');
  const row = page.locator(`tr[data-token="${listed.id}"]`);
  await row.waitFor();
  t.notOk((await page.locator('table.tokens').innerText()).includes(value), 'the list never shows the value');

  await axe(t, page, 'settings with a new token');
  await row.getByRole('button', { name: 'Revoke ci reader' }).click();
  await row.waitFor({ state: 'detached' });
  t.notOk(
    (await api('/v2/tokens')).data.some((x: { id: string }) => x.id === listed.id),
    'the API no longer lists it',
  );
  t.equal((await s.request('GET', '/v2/projects/shop/stats', { token: value })).status, 401, 'it is refused');
  await ctx.close();
});

t.test("members: add, change a role, remove; demoting the last owner shows the API's 409", async (t) => {
  const ctx = await k.context({ cookie: owner.cookie });
  const page = await k.open(ctx, '/p/shop/settings');
  const members = () => s.request('GET', '/v2/members', { cookie: owner.cookie }).then((r) => r.body.data);
  await page.locator('table.members tbody tr').first().waitFor();
  t.same(
    await page.locator('table.members tbody th').allInnerTexts(),
    (await members()).map((m: { login: string; name: string | null }) => (m.name ? `${m.login} ${m.name}` : m.login)),
    "the list is the API's",
  );
  const add = page.getByRole('form', { name: 'Add a member' });
  await add.getByLabel(/Login/).fill('newbie');
  await add.getByLabel('Role').selectOption('viewer');
  await add.getByRole('button', { name: 'Add member' }).click();
  const row = page.locator('tr[data-member="newbie"]');
  await row.waitFor();
  t.match(
    (await members()).find((m: { login: string }) => m.login === 'newbie'),
    { role: 'viewer', projectIds: ['shop'] },
    'the API has the new member',
  );

  await page.getByLabel('Role of newbie').selectOption('analyst');
  await page.locator('.settings-card [role="status"]', { hasText: 'newbie is now analyst' }).waitFor();
  t.equal(
    (await members()).find((m: { login: string }) => m.login === 'newbie').role,
    'analyst',
    'the API has the new role',
  );

  const me = (await members()).find((m: { role: string }) => m.role === 'owner').login as string;
  await page.getByLabel(`Role of ${me}`).selectOption('admin');
  const refusal = page.locator('.settings-card .refusal', { hasText: /owner/ });
  await refusal.waitFor();
  t.match(await refusal.innerText(), /CONFLICT|owner/, "the lifecycle's own message");
  t.ok(expectRefused(k.consoleErrors, 409) === 1, 'the API refused it (409)');
  t.equal(await page.getByLabel(`Role of ${me}`).inputValue(), 'owner', 'the select shows the stored role again');
  t.equal((await members()).find((m: { login: string }) => m.login === me).role, 'owner', 'still the owner');

  await row.getByRole('button', { name: 'Remove newbie' }).click();
  await row.waitFor({ state: 'detached' });
  t.notOk(
    (await members()).some((m: { login: string }) => m.login === 'newbie'),
    'the API no longer has the member',
  );
  await ctx.close();
});

t.test("an admin of one project sees the API's 403 for tokens; a viewer is told settings are not theirs", async (t) => {
  const admin1 = await s.member('admin', ['shop']);
  const ctx = await k.context({ cookie: admin1.cookie });
  const page = await k.open(ctx, '/p/shop/settings');
  await page.locator('form.settings-form').waitFor();
  const tokens = page.getByRole('region', { name: 'API tokens' });
  await tokens.getByRole('alert').waitFor();
  t.match(await tokens.getByRole('alert').innerText(), /does not allow/, "the API's refusal");
  t.ok(expectRefused(k.consoleErrors, 403) >= 1, 'refused (403)');
  await page.locator('table.members').waitFor();
  t.equal(await page.getByRole('button', { name: /^Remove / }).count(), 0, 'members are read-only for an admin');
  await axe(t, page, "an admin's settings");
  await ctx.close();

  const viewer = await s.member('viewer', ['shop']);
  const vctx = await k.context({ cookie: viewer.cookie });
  const vpage = await k.open(vctx, '/p/shop/settings');
  await vpage.getByText(/Only an owner, or an admin of this project/).waitFor();
  t.equal(await vpage.locator('form.settings-form').count(), 0, 'no settings form');
  await vpage.getByRole('region', { name: 'Members' }).getByRole('alert').waitFor();
  expectRefused(k.consoleErrors, 403);
  await axe(t, vpage, "a viewer's settings");
  await vctx.close();
  t.same(k.consoleErrors, [], 'no other console errors');
});

// The SQL view in real headless Chromium against a real server, over events sent through ingest: the
// schema beside the editor is the one the route documents; a query's table equals the API's answer; the
// CSV download equals the API's format=csv; a PostgreSQL error shows its message and position (the caret
// under the character the API names) and a refused statement its code; a project with SQL off shows the
// API's 403; axe-core finds no violation. Needs /usr/bin/chromium.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { axe, downloaded, expectRefused, HUMAN_UA, ingest, kit, launch } from './dashboard-kit.ts';

t.setTimeout(300_000);
const s = await startTestServer();
const shop = await s.project('shop');
await s.project('closed');
const admin = await s.token('admin');
const patched = await s.request('PATCH', '/v2/projects/shop', { token: admin, body: { sqlEnabled: true } });
if (patched.status !== 200) throw new Error(`PATCH answered ${patched.status}`);
const context = { ip: '81.2.69.160', userAgent: HUMAN_UA };
await ingest(
  s,
  shop.secretKey,
  ['/', '/', '/pricing', '/docs', '/'].map((path, i) => ({
    id: `e${i}`,
    name: i === 3 ? 'signup' : 'pageview',
    visitor: `v${i % 2}`,
    page: { url: `https://shop.test${path}` },
    context,
  })),
);
const sqlApi = (query: string, format = '') =>
  s.request('POST', `/v2/projects/shop/sql${format ? `?format=${format}` : ''}`, { token: admin, body: { query } });

const browser = await launch();
const k = kit(browser, s);
t.teardown(async () => {
  await browser.close();
  await s.close();
});

const cells = (page: import('playwright-core').Page) =>
  page
    .locator('.sql-results tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText)));

t.test("the schema is the route's; a query's table and CSV equal the API's", async (t) => {
  const ctx = await k.context({ token: admin });
  const page = await k.open(ctx, '/p/shop/sql');
  const schema = page.getByRole('complementary', { name: 'Schema' });
  await schema.locator('details').first().waitFor();
  t.same(
    await schema.locator('summary code').allInnerTexts(),
    ['events', 'sessions', 'visitors', 'issues', 'speed_samples', 'annotations'],
    'every documented view',
  );
  t.ok(await schema.getByText('visitor_id', { exact: true }).first().isVisible(), 'the columns of events');

  const query = 'select name, count(*)::int as n from events group by name order by n desc';
  await page.getByLabel(/Query/).fill(query);
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.locator('.sql-results').waitFor();
  const answer = (await sqlApi(query)).body;
  t.same(answer.data, [
    { name: 'pageview', n: 4 },
    { name: 'signup', n: 1 },
  ]);
  t.same(await page.locator('.sql-results thead th').allInnerTexts(), ['name', 'n'], 'the columns');
  t.same(
    await cells(page),
    answer.data.map((r: { name: string; n: number }) => [r.name, String(r.n)]),
    "the rows are the API's",
  );
  t.equal(await page.locator('.sql-results caption').innerText(), '2 rows');

  const csv = await downloaded(page, () => page.getByRole('button', { name: 'Download CSV' }).click());
  t.equal(csv.name, 'shop-query.csv');
  t.equal(csv.text, (await sqlApi(query, 'csv')).text, "the CSV is the API's");
  await axe(t, page, 'the SQL view with an answer');
  await ctx.close();
});

t.test('errors show their position and code; SQL off shows the 403', async (t) => {
  const ctx = await k.context({ token: admin });
  const page = await k.open(ctx, '/p/shop/sql');
  const query = 'select name,\n  nosuch\nfrom events';
  await page.getByLabel(/Query/).fill(query);
  await page.getByRole('button', { name: 'Run query' }).click();
  const box = page.locator('.sql-error');
  await box.waitFor();
  const api = (await sqlApi(query)).body.error;
  t.equal(api.code, 'SQL_ERROR');
  const position = api.details[0].position as number;
  t.equal(position, query.indexOf('nosuch') + 1, 'the API names the column');
  t.match(await box.getByRole('alert').innerText(), api.message, "the API's message");
  t.equal(await box.locator('[data-position]').getAttribute('data-position'), String(position));
  t.match(await box.locator('[data-position]').innerText(), /Line 2, column 3/);
  t.equal(await box.locator('pre').innerText(), '  nosuch\n  ^', 'the caret under the character');
  t.same(
    await page.getByLabel(/Query/).evaluate((el: HTMLTextAreaElement) => [el.selectionStart, el.selectionEnd]),
    [position - 1, position],
    'the editor selects it',
  );
  await axe(t, page, 'the SQL view with an error');

  await page.getByLabel(/Query/).fill('delete from events');
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.locator('.sql-error, .sql-answer [role="alert"]', { hasText: 'SQL_REFUSED' }).first().waitFor();
  t.pass('a refused statement shows its code');
  t.equal(expectRefused(k.consoleErrors, 400), 2, 'both were refused (400)');

  const closed = await k.open(ctx, '/p/closed/sql');
  await closed.getByLabel(/Query/).waitFor();
  await closed.locator('.note', { hasText: 'SQL is off for this project' }).waitFor();
  await closed.getByRole('button', { name: 'Run query' }).click();
  const refusal = closed.locator('.sql-answer [role="alert"]');
  await refusal.waitFor();
  t.match(await refusal.innerText(), /SQL is off for project closed/, "the API's 403 message");
  t.equal(expectRefused(k.consoleErrors, 403), 1);
  t.same(k.consoleErrors, [], 'no other console errors');
  await ctx.close();
});

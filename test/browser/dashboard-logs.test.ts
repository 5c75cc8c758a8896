// The Logs view in headless Chromium against a real server: the tail shows the API's lines, new lines
// arrive over the stream, a rejected event's code, field and reason are on its line as the API logged
// them, filters (in the address) show what the API's filtered read holds, Pause holds new lines aside and
// Resume shows every one of them, and a caller without detail access is told why. axe-core finds no
// violation.
import t from 'tap';
import { startKit } from './dashboard-views-kit.ts';

t.setTimeout(300_000);
const kit = await startKit();
t.teardown(() => kit.close());
const { s } = kit;
const site = await s.project('tail');
const admin = await s.token('admin');
type Line = { id: string; level: string; message: string; data: Record<string, unknown> };
const api = async (query = '') => (await s.request('GET', `/v2/projects/tail/logs${query}`, { token: admin })).body;
let n = 0;
const view = (path = '/') => ({
  id: `pv-${++n}`,
  name: 'pageview',
  visitor: 'v1',
  page: { url: `https://tail.example.com${path}` },
});
const tooManyProps = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i]));

await kit.ingest(site.secretKey, [view('/a'), view('/b')]);
await s.settle();

const shownIds = (page: import('playwright-core').Page) =>
  page.locator('ol.log-lines li').evaluateAll((li) => li.map((l) => l.getAttribute('data-id')));

t.test('the tail shows the API lines, then new ones as they happen, with a rejection spelled out', async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/tail/logs');
  await page.waitForSelector('.tail-bar[data-status="live"]');
  const first = (await api()).data as Line[];
  t.ok(first.length > 0, 'the API has lines');
  await page.waitForFunction((k) => document.querySelectorAll('ol.log-lines li').length === k, first.length);
  t.same(await shownIds(page), first.map((l) => l.id).reverse(), 'the same lines, newest first');
  await kit.ingest(site.secretKey, [view('/c'), { id: 'bad-1', name: 'signup', visitor: 'v2', props: tooManyProps }]);
  const after = (await api()).data as Line[];
  const rejected = after.find((l) => l.data?.code === 'LOUPE_INGEST_REJECTED');
  t.ok(rejected, 'the API logged the rejection');
  const line = page.locator(`li[data-id="${rejected!.id}"]`);
  await line.waitFor({ timeout: 15_000 });
  t.equal(await line.locator('[data-item="code"] dd').innerText(), rejected!.data.code);
  t.equal(await line.locator('[data-item="field"] dd').innerText(), String(rejected!.data.field));
  t.equal(await line.locator('[data-item="reason"] dd').innerText(), String(rejected!.data.reason));
  t.equal(await line.locator('[data-item="event"] dd').innerText(), 'signup');
  await page.waitForFunction((k) => document.querySelectorAll('ol.log-lines li').length === k, after.length);
  t.same(await shownIds(page), after.map((l) => l.id).reverse(), 'every line the API holds, none twice');
  await kit.axe(t, page, 'the logs view');
  await kit.shoot(page, 'logs');
  await kit.fitsPhone(t, page, 'logs');
  await ctx.close();
});

t.test("a filter shows the API's filtered lines and sits in the address", async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/tail/logs');
  await page.waitForSelector('.tail-bar[data-status="live"]');
  const level = ((await api()).data as Line[]).find((l) => l.data?.code)!.level;
  await page.getByLabel('Level').selectOption(level);
  await page.waitForURL(`**/logs?level=${level}`);
  const errors = (await api(`?level=${level}`)).data as Line[];
  t.ok(errors.length > 0 && errors.length < ((await api()).data as Line[]).length, 'the filter narrows the lines');
  await page.waitForFunction((k) => document.querySelectorAll('ol.log-lines li').length === k, errors.length);
  t.same(await shownIds(page), errors.map((l) => l.id).reverse());
  await page.getByLabel('Message contains').fill('no line says this');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForURL(/q=no/);
  await page.getByText('No lines match yet').waitFor();
  t.pass('an empty filter says so');
  await ctx.close();
});

t.test('Pause holds new lines aside, and Resume shows every one', async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/tail/logs?level=ok');
  await page.waitForSelector('.tail-bar[data-status="live"]');
  const before = (await api('?level=ok')).data as Line[];
  await page.waitForFunction((k) => document.querySelectorAll('ol.log-lines li').length === k, before.length);
  await page.getByRole('button', { name: 'Pause' }).click();
  for (let i = 0; i < 3; i++) await kit.ingest(site.secretKey, [view(`/p${i}`)]);
  await page.waitForSelector('.held[data-held="3"]', { timeout: 15_000 });
  t.equal(await page.locator('ol.log-lines li').count(), before.length, 'nothing new shown while paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  const all = (await api('?level=ok')).data as Line[];
  t.equal(all.length, before.length + 3, 'the API holds three more');
  await page.waitForFunction((k) => document.querySelectorAll('ol.log-lines li').length === k, all.length);
  t.same(await shownIds(page), all.map((l) => l.id).reverse(), 'every held line, in order');
  await ctx.close();
});

t.test('a caller without detail access is told why', async (t) => {
  const viewer = await s.member('viewer', ['tail']);
  const ctx = await kit.context({ cookie: viewer.cookie });
  const page = await kit.open(ctx, '/p/tail/logs');
  await page.waitForSelector('.tail-bar[data-status="refused"]');
  const refused = await s.request('GET', '/v2/projects/tail/logs', { headers: { cookie: viewer.cookie } });
  t.equal(refused.status, 403);
  t.match(await page.locator('.logs-view [role="alert"]').innerText(), refused.body.error.message);
  for (let i = kit.consoleErrors.length - 1; i >= 0; i--)
    if (/status of 403/.test(kit.consoleErrors[i]!)) kit.consoleErrors.splice(i, 1);
  await ctx.close();
});

t.test('no console errors on any page', async (t) => {
  t.same(kit.consoleErrors, []);
});

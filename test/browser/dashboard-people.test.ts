// The People view and a session's timeline in real headless Chromium against a real server, with data
// sent through ingest (and a seeded crowd for paging): the visitors list equals the API's answer page by
// page and under a filter; CSV and JSON exports equal the API's; a visitor's profile shows the API's
// numbers, geography, device and bot verdict; the internal toggle's effect is read back through the API;
// a session's events are the API's, in order; a viewer is refused (403) and told; signing out on a private
// project's page goes to /; axe-core finds no violation. Needs /usr/bin/chromium.
import t from 'tap';
import { count } from '../../src/dashboard/app/format.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startTestServer } from '../support/server.ts';
import { axe, downloaded, expectRefused, HUMAN_UA, ingest, kit, launch } from './dashboard-kit.ts';

t.setTimeout(300_000);
const s = await startTestServer({ ingestRate: { capacity: 10_000, refillPerSecond: 10_000 } });
const shop = await s.project('shop');
await seedProject(s.loupe.services.sql, {
  projectId: 'shop',
  events: 1_500,
  days: 8,
  embedded: !process.env.DATABASE_URL,
  seed: 3,
});
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const at = (daysAgo: number, minutes: number) => new Date(today - daysAgo * DAY + minutes * 60_000).toISOString();
const context = { ip: '81.2.69.160', userAgent: HUMAN_UA };
const ann = { visitor: 'ann', user: { id: 'u-ann', traits: { plan: 'pro' } }, context };
await ingest(s, shop.secretKey, [
  { id: 'a1', name: 'pageview', session: 's-ann-1', ts: at(1, 600), page: { url: 'https://shop.test/' }, ...ann },
  {
    id: 'a2',
    name: 'pageview',
    session: 's-ann-1',
    ts: at(1, 601),
    page: { url: 'https://shop.test/plans/enterprise' },
    ...ann,
  },
  { id: 'a3', name: 'signup', session: 's-ann-1', ts: at(1, 603), props: { plan: 'pro', seats: 3 }, ...ann },
  { id: 'a4', name: 'pageview', session: 's-ann-2', ts: at(3, 100), page: { url: 'https://shop.test/docs' }, ...ann },
  {
    id: 'b1',
    name: 'pageview',
    visitor: 'bob',
    session: 's-bob',
    ts: at(1, 700),
    page: { url: 'https://shop.test/' },
    context,
  },
]);
// A long session: its timeline comes in pages of 100.
await ingest(
  s,
  shop.secretKey,
  Array.from({ length: 130 }, (_, i) => ({
    id: `c${i}`,
    name: i % 10 === 0 ? 'pageview' : 'scroll',
    visitor: 'cat',
    session: 's-cat',
    ts: at(2, 60 + i / 10),
    page: { url: `https://shop.test/long/${Math.floor(i / 10)}` },
    props: i % 10 === 0 ? {} : { step: i },
    context,
  })),
);
const admin = await s.token('admin', ['shop']);
const viewer = await s.member('viewer', ['shop']);
const api = async (path: string) => {
  const res = await s.request('GET', path, { token: admin });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res;
};

const browser = await launch();
const k = kit(browser, s);
t.teardown(async () => {
  await browser.close();
  await s.close();
});

type Row = { id: string; userId: string | null; sessions: number; pageviews: number; events: number; botScore: number };
const rowsShown = (page: import('playwright-core').Page) =>
  page
    .locator('table.visitors tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText.trim())));
const expected = (rows: Row[]) => rows.map((r) => [r.userId ?? r.id, r.sessions, r.pageviews, r.events, r.botScore]);
const picked = (shown: string[][]) => shown.map((c) => [c[0], c[2], c[3], c[4], c[7]]);
const asShown = (rows: Row[]) =>
  expected(rows).map(([id, ...n]) => [id, ...n.slice(0, 3).map((x) => count(x as number)), String(n[3])]);
const loaded = (page: import('playwright-core').Page) =>
  page.waitForSelector('table.visitors[data-loaded="true"]', { timeout: 20_000 });

t.test('the visitors list equals the API, page by page and under a filter; exports equal the API', async (t) => {
  const ctx = await k.context({ token: admin });
  const page = await k.open(ctx, '/p/shop/people?period=7d');
  await loaded(page);
  const first = await api('/v2/projects/shop/visitors?period=7d&limit=50');
  t.ok(first.body.data.length === 50 && first.body.nextCursor, 'the range holds more than a page of visitors');
  t.same(picked(await rowsShown(page)), asShown(first.body.data), 'page 1 is the API page');

  await page.getByRole('button', { name: 'Next page' }).click();
  await page.waitForFunction(() => document.querySelector('table.visitors caption')?.textContent?.includes('page 2'));
  await loaded(page);
  const second = await api(`/v2/projects/shop/visitors?period=7d&limit=50&cursor=${first.body.nextCursor}`);
  t.same(picked(await rowsShown(page)), asShown(second.body.data), 'page 2 is the API page after the cursor');
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.locator('table.visitors caption', { hasNotText: 'page 2' }).waitFor();
  await loaded(page);
  // The caption can change a render before the rows do: wait for page 1's first row itself.
  await page.waitForFunction(
    (id) =>
      (document.querySelector('table.visitors tbody tr')?.children[0] as HTMLElement | undefined)?.innerText.trim() ===
      id,
    asShown(first.body.data)[0]![0],
  );
  t.same(picked(await rowsShown(page)), asShown(first.body.data), 'back on page 1');

  const form = page.getByRole('form', { name: 'Add a filter' });
  await form.getByLabel('Filter by').selectOption('page');
  await form.getByLabel('Value').fill('/plans/enterprise');
  await form.getByRole('button', { name: 'Add filter' }).click();
  await page.waitForURL(/filter\[page\]=(%2F|\/)plans(%2F|\/)enterprise/);
  const filtered = await api('/v2/projects/shop/visitors?period=7d&limit=50&filter[page]=/plans/enterprise');
  t.same(
    filtered.body.data.map((r: Row) => r.id),
    ['ann'],
    'only ann viewed /plans/enterprise',
  );
  await page.waitForFunction(() => document.querySelectorAll('table.visitors tbody tr').length === 1);
  await loaded(page);
  t.same(picked(await rowsShown(page)), asShown(filtered.body.data), 'the filtered list is the API answer');
  t.ok(
    await page.getByRole('button', { name: /Remove the filter page is \/plans\/enterprise/ }).isVisible(),
    'shown as a chip',
  );

  const csv = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
  const apiCsv = await s.request(
    'GET',
    '/v2/projects/shop/visitors?period=7d&filter[page]=/plans/enterprise&format=csv',
    {
      token: admin,
    },
  );
  t.equal(csv.name, 'shop-visitors.csv');
  t.equal(csv.text, apiCsv.text, 'the CSV is the API export');
  const json = await downloaded(page, () => page.getByRole('button', { name: 'Export JSON' }).click());
  const apiJson = await api('/v2/projects/shop/visitors?period=7d&filter[page]=/plans/enterprise&format=json');
  t.same(JSON.parse(json.text).data, apiJson.body.data, 'the JSON is the API export');
  await axe(t, page, 'the visitors list');
  await ctx.close();
});

t.test("a visitor's profile shows the API's numbers; the internal toggle's effect is read back", async (t) => {
  const ctx = await k.context({ token: admin });
  const page = await k.open(ctx, '/p/shop/people?period=7d&filter[page]=/plans/enterprise');
  await loaded(page);
  await page.getByRole('link', { name: 'u-ann' }).click();
  await page.waitForURL('**/p/shop/people/ann');
  await page.waitForSelector('section.visitor[data-loaded="true"]');
  const { data: v } = (await api('/v2/projects/shop/visitors/ann')).body;
  const fact = (card: string, label: string) =>
    page
      .getByRole('region', { name: card })
      .locator('div', { has: page.locator(`dt:text-is("${label}")`) })
      .locator('dd')
      .innerText();
  t.equal(await fact('Visits', 'Sessions'), count(v.sessions), 'sessions');
  t.equal(await fact('Visits', 'Pageviews'), count(v.pageviews), 'pageviews');
  t.equal(await fact('Visits', 'Events'), count(v.events), 'events');
  t.equal(await fact('Visits', 'Days active'), count(v.daysActive), 'days active');
  t.equal(await fact('Identity', 'plan'), 'pro', 'a trait');
  if (v.geo.city) t.equal(await fact('Geography', 'City'), v.geo.city, 'the city');
  t.equal(await fact('Device', 'Browser'), `${v.device.browser} ${v.device.browserVersion}`, 'the browser');
  const bot = page.getByRole('region', { name: 'Bot verdict' });
  t.equal(await bot.locator('.verdict').innerText(), v.bot.verdict, 'the verdict');
  t.equal(await bot.locator('[data-score]').innerText(), String(v.bot.score), 'the score');
  t.equal(await page.locator('table.sessions tbody tr').count(), v.recentSessions.length, 'the recent sessions');
  await axe(t, page, "a visitor's profile");

  await page.getByRole('button', { name: 'Mark as internal' }).click();
  const status = page.locator('.internal-toggle [role="status"]');
  await status.waitFor();
  t.match(await status.innerText(), /Marked as internal: 4 events and 2 sessions changed/);
  t.equal((await api('/v2/projects/shop/visitors/ann')).body.data.isInternal, true, 'the API has it internal');
  await page.getByRole('button', { name: 'Mark as not internal' }).waitFor();
  t.ok(await page.locator('#visitor-title .badge', { hasText: 'internal' }).isVisible(), 'shown as internal');
  await page.getByRole('button', { name: 'Mark as not internal' }).click();
  await page.getByRole('button', { name: 'Mark as internal' }).waitFor();
  t.equal((await api('/v2/projects/shop/visitors/ann')).body.data.isInternal, false, 'and back');

  // The session of the three events: its timeline is the API's, in order.
  const s1 = v.recentSessions.find((x: { pageviews: number }) => x.pageviews === 2);
  await page.locator(`table.sessions a[href$="/session/${s1.id}"]`).click();
  await page.waitForURL(`**/p/shop/session/${s1.id}`);
  await page.locator('ol.timeline').waitFor();
  const events = (await api(`/v2/projects/shop/sessions/${s1.id}/events`)).body;
  t.same(
    await page.locator('ol.timeline > li .event-name').allInnerTexts(),
    events.data.map((e: { name: string }) => e.name),
    'the events in order',
  );
  t.same(
    events.data.map((e: { id: string }) => e.id),
    ['a1', 'a2', 'a3'],
    'the ingested events',
  );
  t.match(await page.locator('ol.timeline > li').nth(2).innerText(), /seats\s+3/, "an event's props");
  t.equal(await page.locator('[data-score]').innerText(), String(events.session.bot.score), 'the bot score');
  const csv = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
  const apiCsv = await s.request('GET', `/v2/projects/shop/sessions/${s1.id}/events?format=csv`, { token: admin });
  t.equal(csv.text, apiCsv.text, "the session's CSV is the API export");
  await axe(t, page, "a session's timeline");
  await ctx.close();
});

t.test("a long session's timeline reads its next page on demand, in order", async (t) => {
  const { recentSessions } = (await api('/v2/projects/shop/visitors/cat')).body.data;
  t.equal(recentSessions.length, 1, 'one session');
  const id = recentSessions[0].id as string;
  const ctx = await k.context({ token: admin });
  const page = await k.open(ctx, `/p/shop/session/${id}`);
  const items = page.locator('ol.timeline > li');
  await items.first().waitFor();
  const first = (await api(`/v2/projects/shop/sessions/${id}/events?limit=100`)).body;
  t.equal(await items.count(), 100, 'the first page');
  t.ok(first.nextCursor, 'the API has more');
  await page.getByRole('button', { name: 'Load more events' }).click();
  await page.waitForFunction(() => document.querySelectorAll('ol.timeline > li').length === 130);
  const second = (await api(`/v2/projects/shop/sessions/${id}/events?limit=100&cursor=${first.nextCursor}`)).body;
  t.same(
    await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-event'))),
    [...first.data, ...second.data].map((e: { id: string }) => e.id),
    "every event, in the API's order",
  );
  t.same(
    [...first.data, ...second.data].map((e: { id: string }) => e.id),
    Array.from({ length: 130 }, (_, i) => `c${i}`),
    'as sent',
  );
  t.equal(await page.getByRole('button', { name: 'Load more events' }).count(), 0, 'nothing more to load');
  await ctx.close();
});

t.test('a viewer (aggregates only) is told the API refused; signing out on a private page goes to /', async (t) => {
  const ctx = await k.context({ cookie: viewer.cookie });
  const page = await k.open(ctx, '/p/shop/people');
  const alert = page.getByRole('alert').first();
  await alert.waitFor();
  t.match(await alert.innerText(), /does not allow/, "the API's 403 message");
  t.ok(expectRefused(k.consoleErrors, 403) > 0, 'the read was refused');
  await axe(t, page, 'a refused read');
  await ctx.close();

  const signedIn = await k.context({ token: admin });
  const p2 = await k.open(signedIn, '/p/shop/people?period=7d');
  await loaded(p2);
  await p2.getByRole('button', { name: 'Sign out' }).click();
  await p2.waitForURL(`${s.url}/`);
  await p2.getByRole('button', { name: 'Use an API token' }).waitFor();
  t.equal(await p2.getByRole('alert').count(), 0, 'no refusal on screen');
  t.equal(await p2.evaluate(() => sessionStorage.getItem('loupe.token')), null, 'the token is gone');
  await p2.waitForTimeout(500);
  t.same(k.consoleErrors, [], 'no console errors (no 404s after signing out)');
  await signedIn.close();
});

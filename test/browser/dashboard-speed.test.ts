// The Speed and Retention views in headless Chromium against a real server: the score, each metric's
// value at the percentile and its shares, the routes by score and the worst elements equal the API's
// answers, and stay equal when the percentile, device and metric pickers change (held in the address);
// the retention grid's cells equal the API's cohorts, by week and by month, and under a segment the overview's
// filters bring (removable there). axe-core finds no violation.
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { count, percent } from '../../src/dashboard/app/format.ts';
import { metricText, ratingText } from '../../src/dashboard/app/views/speed/format.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startKit } from './dashboard-views-kit.ts';

t.setTimeout(300_000);
const kit = await startKit();
t.teardown(() => kit.close());
const { s } = kit;
const site = await s.project('fast');
await s.project('kept');
await seedProject(s.loupe.services.sql, {
  projectId: 'kept',
  events: 3_000,
  days: 70,
  embedded: !process.env.DATABASE_URL,
  seed: 3,
});
const admin = await s.token('admin');

const ROUTES = ['/', '/pricing', '/docs/[slug]'];
const ELEMENTS = ['#hero', 'h1.title', 'button.buy'];
const samples = Array.from({ length: 60 }, (_, i) => ({
  id: `sp-${i}`,
  name: 'speed',
  visitor: `v${i % 7}`,
  page: { url: `https://fast.example.com${ROUTES[i % 3]!.replace('[slug]', 'a')}`, route: ROUTES[i % 3] },
  vitals: {
    lcp: 900 + ((i * 137) % 4200),
    inp: 60 + ((i * 53) % 600),
    cls: ((i * 7) % 30) / 100,
    fcp: 500 + ((i * 71) % 2800),
    ttfb: 100 + ((i * 31) % 1500),
    element: ELEMENTS[i % 3],
  },
}));
await kit.ingest(site.secretKey, samples);
await s.settle();

const DAY = 86_400_000;
const end = (Math.floor(Date.now() / DAY) + 1) * DAY;
const range = (days: number) => `from=${new Date(end - days * DAY).toISOString()}&to=${new Date(end).toISOString()}`;
const api = async (path: string) => (await s.request('GET', path, { token: admin })).body;

async function checkSpeed(t: Test, page: Page, query: string, metric: string) {
  await page.waitForSelector('.speed-summary[data-loaded="true"]');
  const summary = (await api(`/v2/projects/fast/speed?${query}`)).data;
  // The page may still show the previous pick's answer for a moment: wait for this one's.
  await page.waitForFunction(
    ([lcp, samples]) =>
      document.querySelector('.metric-card[data-metric="lcp"] .metric-value')?.textContent === lcp &&
      document.querySelector('.score-card .muted')?.textContent === `${samples} samples`,
    [metricText('lcp', summary.metrics.lcp.value), count(summary.samples)],
  );
  t.equal(await page.locator('.score').innerText(), String(summary.score ?? '–'), 'the score');
  t.equal(await page.locator('.score-card .rating').innerText(), ratingText(summary.rating), 'its rating');
  for (const m of ['lcp', 'inp', 'cls', 'fcp', 'ttfb']) {
    const card = page.locator(`.metric-card[data-metric="${m}"]`);
    const a = summary.metrics[m];
    t.equal(await card.locator('.metric-value').innerText(), metricText(m, a.value), `${m} value`);
    t.equal(await card.locator('[data-share="good"]').innerText(), `Good ${percent(a.shares.good)}`, `${m} good`);
    t.equal(await card.locator('[data-share="poor"]').innerText(), `Poor ${percent(a.shares.poor)}`, `${m} poor`);
  }
  const routes = (await api(`/v2/projects/fast/speed/routes?${query}&limit=100`)).data as {
    route: string;
    score: number;
    samples: number;
  }[];
  await page.waitForFunction(
    (n) => document.querySelectorAll('table.speed-routes tbody tr').length === n,
    routes.length,
  );
  const shown = await page
    .locator('table.speed-routes tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-route'), (tr.children[1] as HTMLElement).innerText]));
  const sorted = [...routes].sort((a, b) => a.score - b.score || b.samples - a.samples);
  t.same(
    shown,
    sorted.map((r) => [r.route, String(r.score)]),
    'routes by score, worst first',
  );
  const elements = (await api(`/v2/projects/fast/speed/elements?${query}&metric=${metric}`)).data as {
    element: string;
    value: number;
    samples: number;
  }[];
  await page.waitForFunction(
    (n) => document.querySelectorAll('table.speed-elements tbody tr').length === n,
    Math.min(elements.length, 10),
  );
  const top = [...elements].sort((a, b) => b.value - a.value)[0]!;
  const firstRow = await page.locator('table.speed-elements tbody tr').first().innerText();
  t.match(firstRow, top.element, 'the worst element first');
  t.match(firstRow, metricText(metric, top.value));
  t.match(firstRow, count(top.samples));
}

t.test("the speed view's numbers equal the API's, through every picker", async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/fast/speed');
  await checkSpeed(t, page, `${range(7)}&device=all&percentile=75`, 'lcp');
  await page.waitForSelector('.speed-view .plot');
  const series = (await api(`/v2/projects/fast/speed/timeseries?${range(7)}&metric=lcp`)).data;
  t.equal(
    await page.locator('.speed-view .plot').getAttribute('data-buckets'),
    String(series.length),
    'a bucket a day',
  );
  await kit.axe(t, page, 'the speed view');
  await kit.shoot(page, 'speed');
  await kit.fitsPhone(t, page, 'speed');
  await page.getByLabel('Percentile').selectOption('90');
  await page.waitForURL('**/speed?percentile=90');
  await checkSpeed(t, page, `${range(7)}&device=all&percentile=90`, 'lcp');
  await page.getByLabel('Metric').selectOption('cls');
  await page.waitForURL(/metric=cls/);
  await checkSpeed(t, page, `${range(7)}&device=all&percentile=90`, 'cls');
  await page.getByLabel('Device').selectOption('mobile');
  await page.waitForURL(/device=mobile/);
  await page.waitForSelector('.speed-summary[data-loaded="true"]');
  const mobile = (await api(`/v2/projects/fast/speed?${range(7)}&device=mobile&percentile=90`)).data;
  await page.waitForFunction(
    (n) => document.querySelector('.score-card .muted')?.textContent === `${n} samples`,
    count(mobile.samples),
  );
  t.pass('mobile samples as the API counts them');
  await ctx.close();
});

t.test("the retention grid's cells equal the API's cohorts, by week and by month", async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/kept/retention');
  for (const [interval, days] of [
    ['week', 90],
    ['month', 365],
  ] as const) {
    if (interval === 'month') {
      await page.getByLabel('Cohorts by').selectOption('month');
      await page.waitForURL('**/retention?interval=month');
    }
    await page.waitForSelector(`table.retention[data-interval="${interval}"]`);
    const cohorts = (await api(`/v2/projects/kept/retention?interval=${interval}&${range(days)}`)).data as {
      cohort: string;
      visitors: number;
      periods: { offset: number; share: number }[];
    }[];
    t.ok(cohorts.length > 1, `${interval}: several cohorts`);
    await page.waitForFunction(
      (first) => document.querySelector('table.retention tbody tr')?.getAttribute('data-cohort') === first,
      cohorts[0]!.cohort,
    );
    for (const c of cohorts) {
      const row = page.locator(`tr[data-cohort="${c.cohort}"]`);
      t.equal(await row.locator('td').first().innerText(), count(c.visitors), `${c.cohort}: visitors`);
      const cells = await row.locator('td.cell').allInnerTexts();
      t.same(
        cells,
        c.periods.map((p) => percent(p.share, 1)),
        `${c.cohort}: shares`,
      );
    }
    await kit.axe(t, page, `the retention grid by ${interval}`);
  }
  await kit.shoot(page, 'retention');
  await kit.fitsPhone(t, page, 'retention');
  await ctx.close();
});

t.test("a segment from the overview's filters: its retention grid, and the whole one once removed", async (t) => {
  const ctx = await kit.context({ token: admin });
  const page = await kit.open(ctx, '/p/kept?period=30d');
  await page.locator('[data-panel="devices"] button.value').first().click();
  await page.waitForURL(/filter\[browser\]=/);
  const browser = decodeURIComponent(/filter\[browser\]=([^&]+)/.exec(page.url())![1]!);
  await page.getByRole('link', { name: 'Retention of this segment' }).click();
  await page.waitForURL(/\/p\/kept\/retention\?filter\[browser\]=/);
  const grid = async (query: string, label: string) => {
    const cohorts = (await api(`/v2/projects/kept/retention?interval=week&${range(90)}${query}`)).data as {
      cohort: string;
      visitors: number;
    }[];
    t.ok(cohorts.length > 1, `${label}: several cohorts`);
    await page.waitForFunction(
      (want) =>
        [...document.querySelectorAll('table.retention tbody tr')]
          .map((r) => `${r.getAttribute('data-cohort')} ${r.querySelector('td')?.textContent}`)
          .join('|') === want,
      cohorts.map((c) => `${c.cohort} ${count(c.visitors)}`).join('|'),
    );
    t.pass(`${label}: the cohorts and their visitors equal the API's`);
    return cohorts;
  };
  const segment = await grid(`&filter[browser]=${encodeURIComponent(browser)}`, `browser ${browser}`);
  t.equal(await page.locator('.retention-view .chip').count(), 1, 'the segment shown as a chip');
  await kit.axe(t, page, 'the retention grid of a segment');
  await kit.shoot(page, 'retention-segment');
  await page.getByRole('button', { name: `Remove the filter browser is ${browser}` }).click();
  await page.waitForURL((url) => !url.search.includes('filter'));
  const whole = await grid('', 'everyone');
  const visitors = (cohorts: { visitors: number }[]) => cohorts.reduce((n, c) => n + c.visitors, 0);
  t.ok(visitors(whole) > visitors(segment), 'the whole grid holds more visitors than the segment');
  t.equal(await page.locator('.retention-view .chip').count(), 0, 'no chip');
  await ctx.close();
});

t.test('no console errors on any page', async (t) => {
  t.same(kit.consoleErrors, []);
});

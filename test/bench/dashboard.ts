// `npm run bench:dashboard`: what the dashboard's first page weighs (every file it loads, gzip) against
// the 150 KB budget, and the time from navigation to the first numbers on screen in headless Chromium,
// on a project seeded by src/seed (1M events on PostgreSQL when DATABASE_URL is set, 100k on embedded
// PGlite; BENCH_EVENTS overrides). Day rollups are built before measuring, as a running server keeps
// them; each run is a fresh browser context (nothing cached) unless marked warm. BENCH_RUNS (7).
import { chromium } from 'playwright-core';
import { buildDashboard, firstLoad, FIRST_VISIT } from '../../src/dashboard/build.ts';
import { renderPage } from '../../src/dashboard/page.ts';
import { ensureRollups } from '../../src/query/rollup/build.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startTestServer } from '../support/server.ts';

const BUDGET_KB = 150;
const TARGET_MS = 1000;
const embedded = !process.env.DATABASE_URL;
const events = Number(process.env.BENCH_EVENTS ?? (embedded ? 100_000 : 1_000_000));
const runs = Number(process.env.BENCH_RUNS ?? 7);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

const bundle = await buildDashboard();
console.log('dashboard files (gzip):');
console.table([...bundle.assets].map(([file, a]) => ({ file, bytes: a.body.length, gzip: a.gzip.length })));
for (const view of Object.keys(FIRST_VISIT) as (keyof typeof FIRST_VISIT)[]) {
  const page = renderPage(bundle, { signIn: false, view });
  const files = firstLoad(bundle, view);
  const total = files.reduce((n, f) => n + bundle.assets.get(f)!.gzip.length, page.gzip.length);
  console.log(
    `first page, ${view} view: ${kb(total)} gzip (budget ${BUDGET_KB} KB) ${total < BUDGET_KB * 1024 ? 'ok' : 'OVER'}`,
  );
}

const s = await startTestServer();
try {
  await s.project('bench');
  console.error(`seeding ${events} events (${embedded ? 'embedded PGlite' : 'PostgreSQL'}) …`);
  const seeded = await seedProject(s.loupe.services.sql, { projectId: 'bench', events, days: 90, embedded });
  console.error(`seeded in ${seeded.seconds.toFixed(1)} s`);
  const DAY = 86_400_000;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const t0 = performance.now();
  await ensureRollups(
    s.loupe.services.sql,
    ['bench'],
    new Date(today - 200 * DAY).toISOString().slice(0, 10),
    new Date(today).toISOString().slice(0, 10),
  );
  console.error(`rollups built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const token = await s.token('read');
  // A running server has built its bundle long before: the build on first request is not measured.
  await fetch(`${s.url}/`);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const url = `${s.url}/p/bench?period=30d`;
  const measure = async (ctx: Awaited<ReturnType<typeof browser.newContext>>) => {
    const p = await ctx.newPage();
    await p.goto(url);
    const ms = await (
      await p.waitForFunction(
        () => document.querySelector('.headline[data-loaded="true"]') && performance.now(),
        null,
        { polling: 'raf', timeout: 60_000 },
      )
    ).jsonValue();
    const bytes = await p.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).reduce(
        (acc, r) => {
          const path = new URL(r.name).pathname;
          acc[path.startsWith('/v2/') ? 'api' : 'assets'] += r.transferSize;
          // The headline's read: when the page could ask, and how long the server took to answer.
          if (path.endsWith('/stats') && acc.statsAt < 0) {
            acc.statsAt = r.startTime;
            acc.statsMs = r.responseEnd - r.startTime;
          }
          return acc;
        },
        {
          assets: nav.transferSize,
          api: 0,
          statsAt: -1,
          statsMs: 0,
          // The page's own milestones: its HTML arrived, and its module scripts had run (DOMContentLoaded).
          htmlAt: nav.responseEnd,
          scriptsAt: nav.domContentLoadedEventEnd,
        },
      );
    });
    // The page's other reads (chart, panels) finish before the next run starts, so no run waits on the
    // previous one's queries.
    await p.waitForFunction(() => !document.querySelector('.panels .note.loading, .chart-card .note.loading'), null, {
      timeout: 60_000,
    });
    await p.close();
    return { ms: ms as number, ...bytes };
  };
  const cold: Awaited<ReturnType<typeof measure>>[] = [];
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext();
    await ctx.addInitScript((tok) => sessionStorage.setItem('loupe.token', tok), token);
    cold.push(await measure(ctx));
    await ctx.close();
  }
  const ctx = await browser.newContext();
  await ctx.addInitScript((tok) => sessionStorage.setItem('loupe.token', tok), token);
  await measure(ctx);
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) warm.push((await measure(ctx)).ms);
  await browser.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`project: ${events} events over 90 days; overview, last 30 days`);
  console.log(
    `over the wire by the first numbers: ${kb(cold[0]!.assets)} of page, scripts and styles (gzip), ${kb(cold[0]!.api)} of API answers`,
  );
  console.log(
    `time to first numbers, fresh context: median ${median(cold.map((c) => c.ms)).toFixed(0)} ms (runs ${cold.map((c) => c.ms.toFixed(0)).join(', ')}; target ${TARGET_MS} ms)`,
  );
  const at = (k: 'htmlAt' | 'scriptsAt' | 'statsAt' | 'statsMs') => median(cold.map((c) => c[k])).toFixed(0);
  console.log(
    `  medians: HTML in at ${at('htmlAt')} ms, scripts run by ${at('scriptsAt')} ms, stats asked at ${at('statsAt')} ms, the stats read took ${at('statsMs')} ms`,
  );
  console.log(`time to first numbers, cached assets: median ${median(warm).toFixed(0)} ms`);
} finally {
  await s.close();
}

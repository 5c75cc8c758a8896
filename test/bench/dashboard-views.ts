// `npx tsx test/bench/dashboard-views.ts`: the time from navigation to the first numbers of the errors,
// issue, speed, retention and logs views in headless Chromium, on a project seeded by src/seed (its
// errors, issues and Web Vitals samples included; 1M events on PostgreSQL when DATABASE_URL is set, 100k
// on embedded PGlite; BENCH_EVENTS overrides), plus BENCH_ISSUES (1000) distinct errors sent through ingest
// a day ago. Each run is a fresh browser context; BENCH_RUNS (5). The issue page is measured on the least
// recently seen issue, the one its search pages furthest for (the API has no single-issue read).
import { chromium } from 'playwright-core';
import { ensureRollups } from '../../src/query/rollup/build.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startTestServer } from '../support/server.ts';

const embedded = !process.env.DATABASE_URL;
const events = Number(process.env.BENCH_EVENTS ?? (embedded ? 100_000 : 1_000_000));
const runs = Number(process.env.BENCH_RUNS ?? 5);
const extraIssues = Number(process.env.BENCH_ISSUES ?? 1000);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';
/** A distinct function name a number (letters only: digits would be normalised away by grouping). */
const name = (n: number) => `handle${n.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]!)}`;
const DAY = 86_400_000;

const s = await startTestServer();
try {
  const bench = await s.project('bench');
  console.error(`seeding ${events} events (${embedded ? 'embedded PGlite' : 'PostgreSQL'}) …`);
  await seedProject(s.loupe.services.sql, { projectId: 'bench', events, days: 90, embedded });
  const today = Math.floor(Date.now() / DAY) * DAY;
  await ensureRollups(
    s.loupe.services.sql,
    ['bench'],
    new Date(today - 200 * DAY).toISOString().slice(0, 10),
    new Date(today).toISOString().slice(0, 10),
  );
  const token = await s.token('admin');
  for (let from = 0; from < extraIssues; from += 500) {
    const events = Array.from({ length: Math.min(500, extraIssues - from) }, (_, i) => ({
      id: `bench-err-${from + i}`,
      name: 'error',
      ts: new Date(Date.now() - DAY + (from + i) * 1000).toISOString(),
      visitor: `bv${i % 50}`,
      page: { url: 'https://bench.example.com/app' },
      props: {
        type: 'Error',
        message: `failed in ${name(from + i)}`,
        stack: `Error: failed\n    at ${name(from + i)} (https://bench.example.com/assets/app.js:1:${from + i})`,
      },
    }));
    const res = await s.request('POST', '/v2/ingest', {
      token: bench.secretKey,
      body: { events },
      headers: { 'user-agent': UA },
    });
    if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${res.text}`);
  }
  await s.settle();
  let cursor: string | null = null;
  let issues = 0;
  let oldest = '';
  do {
    const page: { body: { data: { id: string }[]; nextCursor: string | null } } = await s.request(
      'GET',
      `/v2/projects/bench/issues?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    issues += page.body.data.length;
    oldest = page.body.data.at(-1)?.id ?? oldest;
    cursor = page.body.nextCursor;
  } while (cursor);
  await fetch(`${s.url}/`); // the bundle is built once per process, long before a visitor comes
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const views: [string, string, string][] = [
    ['errors', '/p/bench/errors', 'table.issues[data-loaded="true"]'],
    ['issue (oldest)', `/p/bench/errors/${oldest}`, 'table.issue-events'],
    ['speed (7 days)', '/p/bench/speed', '.speed-summary[data-loaded="true"]'],
    ['speed (90 days)', '/p/bench/speed?range=90d', '.speed-summary[data-loaded="true"]'],
    ['retention (weeks, 90 days)', '/p/bench/retention', 'table.retention'],
    ['logs', '/p/bench/logs', '.tail-bar[data-status="live"]'],
  ];
  console.log(`project: ${events} events over 90 days, ${issues} issues`);
  for (const [name, path, ready] of views) {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const ctx = await browser.newContext();
      await ctx.addInitScript((tok) => sessionStorage.setItem('loupe.token', tok), token);
      const p = await ctx.newPage();
      await p.goto(s.url + path);
      const handle = await p.waitForFunction((sel) => document.querySelector(sel) && performance.now(), ready, {
        polling: 'raf',
        timeout: 120_000,
      });
      times.push((await handle.jsonValue()) as number);
      await ctx.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `${name}: median ${sorted[Math.floor(runs / 2)]!.toFixed(0)} ms (runs ${times.map((t) => t.toFixed(0)).join(', ')})`,
    );
  }
  await browser.close();
} finally {
  await s.close();
}

// The browser SDK end to end in real headless Chromium: a test site on its own origin (shop.test) loads
// loupe.js from the Loupe test server, is driven through SPA navigations, a custom event, errors and a
// page exit, and what arrived is read back from the database and through the API (issues with their
// breadcrumbs and frames, logs, stats, the page breakdown, the visitor). The browser is made to look
// human (a desktop Chrome user agent, navigator.webdriver false, real pointer input), since bot and
// localhost errors open no issue; a HeadlessChrome context and a 127.0.0.1 page check exactly that.
// Needs /usr/bin/chromium.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import t, { type Test } from 'tap';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestServer } from '../support/server.ts';
import { SHOP_SCRIPT, SITE_HOST, startTestSite, type TestSite } from './site.ts';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: the browser tests need it (apt-get update && apt-get install -y chromium).`);
}

const logLines: string[] = [];
const s = await startTestServer({ ingestRate: { capacity: 10_000, refillPerSecond: 10_000 } }, logLines);
const project = await s.project('site');
const widgetProject = await s.project('widget-site');
const botProject = await s.project('bot-site');
const localProject = await s.project('local-site');
const site: TestSite = await startTestSite({
  loupeUrl: s.url,
  publicKey: project.publicKey,
  widgetKey: widgetProject.publicKey,
  otherKeys: { bot: botProject.publicKey, local: localProject.publicKey },
});
const owner = await s.member('owner');
const analyst = await s.member('analyst', ['site', 'bot-site', 'local-site']);
for (const [id, body] of [
  ['site', { allowedOrigins: [site.url] }],
  ['widget-site', { widgetReports: true }],
] as const) {
  const patched = await s.request('PATCH', `/v2/projects/${id}`, { ...owner, body });
  if (patched.status !== 200) throw new Error(`could not set up ${id}: ${patched.status} ${patched.text}`);
}
await s.loupe.services.projects.refresh();
// A desktop Chrome user agent without "Headless", for the whole browser: a context's userAgent option
// does not reach the beacon sent on page exit. Its major must be this Chromium's own: the browser sends
// `Sec-CH-UA: "Chromium";v="<major>"` to Loupe (127.0.0.1 is a trustworthy origin), and a different
// major is the uaMismatch bot signal.
const major = /Chromium (\d+)\./.exec(
  execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
)?.[1];
if (!major) throw new Error(`could not read the major version of ${CHROMIUM} --version`);
const HUMAN_UA = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
const HEADLESS_UA = HUMAN_UA.replace('Chrome/', 'HeadlessChrome/');
const browser: Browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--no-first-run',
    '--disable-component-update',
    '--disable-sync',
    `--user-agent=${HUMAN_UA}`,
    '--disable-blink-features=AutomationControlled', // navigator.webdriver is false
    `--host-resolver-rules=MAP ${SITE_HOST} 127.0.0.1`, // the page host is not localhost to the server
  ],
});
const human: BrowserContext = await browser.newContext(); // the launch's agent and flags
t.teardown(async () => {
  await browser.close();
  await site.close();
  await s.close();
});
const sql = s.loupe.services.sql;

type EventRow = {
  id: string;
  name: string;
  path: string | null;
  props: Record<string, unknown>;
  release: string | null;
  bot_score: number;
  visitor_id: string;
  session_id: string;
  is_localhost: boolean;
  issue_id: string | null;
  browser: string | null;
};
type SentEvent = { name: string; signals?: { webdriver: boolean; headless: boolean; pointerEvents: boolean } };

t.test('a visit in Chromium arrives as pageviews, a custom event, errors, speed and engagement', async (t) => {
  const startedAt = new Date(Date.now() - 60_000);
  const page = await human.newPage();
  const sent: SentEvent[] = []; // what the SDK sent, in order (fetch batches and beacons)
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/v2/ingest')
      sent.push(...((JSON.parse(r.postData() ?? '{}') as { events?: SentEvent[] }).events ?? []));
  });
  const consoleErrors: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
  const uncaught: string[] = [];
  page.on('pageerror', (e) => void uncaught.push(e.message));

  await page.goto(`${site.url}/`);
  await page.waitForFunction(() => typeof (window as unknown as { loupe?: unknown }).loupe === 'object');
  await page.mouse.move(40, 40);
  await page.mouse.move(160, 90, { steps: 5 });
  await page.click('#to-pricing');
  await page.waitForURL('**/pricing');
  await page.click('#to-docs');
  await page.waitForURL('**/docs');
  await page.click('#signup');
  await page.click('#throw');
  await page.click('#reject');
  await page.click('#fetch-then-throw');
  await page.waitForFunction(() => (window as unknown as { afterFetchThrown?: boolean }).afterFetchThrown === true);
  t.same(uncaught.sort(), ['after fetch 404', 'boom string', 'kaboom from button'].sort(), 'the page really threw');
  // The 1 s batch timer sends what is queued by fetch; leaving the page (pagehide, visibilitychange)
  // sends the engagement and the LCP/CLS reported on hide by beacon.
  const beforeExit = await settled(1);
  await page.goto(`${site.url}/bye`);
  await settled(beforeExit + 1);
  await page.close();
  // The database is read only once ingest has gone quiet: embedded PGlite is one session, and a query
  // interleaved with the server's commit can break the extended protocol ("portal does not exist").
  const rows = await events();
  const byName = (name: string) => rows.filter((e) => e.name === name);

  t.same(
    byName('pageview').map((e) => e.path),
    ['/', '/pricing', '/docs'],
    'one pageview per SPA path',
  );
  t.equal(new Set(rows.map((e) => e.visitor_id)).size, 1, 'one visitor');
  t.equal(new Set(rows.map((e) => e.session_id)).size, 1, 'one session');
  t.ok(
    rows.every((e) => e.release === '1.2.3'),
    'data-release is on every event',
  );

  const [signup] = byName('signup');
  t.same(signup?.props, { plan: 'pro' }, 'the custom event with its props');
  t.equal(signup?.path, '/docs');

  const errors = byName('error');
  t.equal(errors.length, 3, 'three error events');
  const thrown = errors.find((e) => e.props.message === 'kaboom from button');
  t.match(thrown?.props, {
    type: 'TypeError',
    level: 'error',
    stack: /kaboom from button[\s\S]*at /,
    breadcrumbs: String,
  });
  const thrownCrumbs = crumbs(thrown);
  t.same(
    thrownCrumbs.filter((c) => c.kind === 'navigation').map((c) => c.message),
    ['/', '/pricing', '/docs'],
    'navigation breadcrumbs',
  );
  t.ok(
    thrownCrumbs.some((c) => c.kind === 'event' && c.message === 'signup'),
    'the custom event as a breadcrumb',
  );
  t.ok(
    thrownCrumbs.some((c) => c.kind === 'click' && c.message === 'button'),
    'the click as a breadcrumb',
  );
  t.ok(
    thrownCrumbs.every((c) => Math.abs(c.ts - Date.now()) < 120_000),
    'breadcrumbs start with a unix-ms timestamp',
  );

  const rejected = errors.find((e) => e.props.message === 'boom string');
  t.ok(rejected, 'the string rejection as message "boom string"');
  t.equal(rejected?.props.type, 'Error');
  t.notOk('stack' in (rejected?.props ?? {}), 'a non-Error rejection has no stack');

  const afterFetch = errors.find((e) => e.props.message === 'after fetch 404');
  t.equal(afterFetch?.props.type, 'RangeError');
  const fetchCrumbs = crumbs(afterFetch).filter((c) => c.kind === 'fetch');
  t.equal(fetchCrumbs.length, 1, 'one fetch breadcrumb');
  t.match(
    fetchCrumbs[0]?.message,
    new RegExp(`^404 ${escape(site.url)}/missing-resource$`),
    'the failed fetch: status and URL, query dropped',
  );
  t.notOk(
    crumbs(afterFetch).some((c) => c.kind === 'fetch' && c.message.includes('/v2/ingest')),
    "the SDK's own requests add no breadcrumb",
  );

  const speedRows = byName('speed');
  t.ok(speedRows.length >= 3, `speed events (${speedRows.length})`);
  t.ok(
    speedRows.every((e) => e.path === '/'),
    'vitals belong to the landing page',
  );
  const samples = await speed();
  const has = (m: keyof SpeedRow) => samples.some((r) => r[m] !== null);
  t.ok(has('fcp') && has('ttfb'), 'FCP and TTFB on load');
  t.ok(has('lcp'), 'LCP after input or hide');
  t.ok(samples.every((r) => (r.fcp ?? 0) >= 0 && (r.ttfb ?? 0) >= 0));

  const engagement = byName('engagement');
  t.ok(engagement.length >= 1, 'an engagement event');
  t.ok(
    engagement.every((e) => typeof e.props.timeMs === 'number' && (e.props.timeMs as number) > 0),
    'with timeMs',
  );
  t.ok(
    engagement.some((e) => e.path === '/docs'),
    'for the page that was left',
  );

  // The landing pageview goes out before any pointer event (10 points, noPointerEvents); later ones carry it.
  t.ok(
    rows.every((e) => e.bot_score < 25),
    `the browser scores as human (${[...new Set(rows.map((e) => e.bot_score))].join(', ')})`,
  );
  t.ok(
    rows.every((e) => !e.is_localhost && e.browser === 'Chrome'),
    'not localhost; the agent parsed as Chrome',
  );
  t.ok(
    sent.length > 0 && sent.every((e) => e.signals?.webdriver === false && e.signals.headless === false),
    'the SDK saw no webdriver and no headless hint',
  );
  t.equal(sent[0]?.signals?.pointerEvents, false, 'the landing pageview was sent before any pointer event');
  t.ok(
    sent.filter((e) => e.name === 'error').every((e) => e.signals?.pointerEvents === true),
    'the errors came after the mouse moved',
  );
  t.ok(
    errors.every((e) => e.issue_id !== null),
    'every error joined an issue',
  );

  const lines = await sql<{ message: string; data: { accepted: number; duplicates: number; requestId: string } }[]>`
    select message, data from logs where project_id = 'site' and message like 'Accepted %' order by id`;
  t.ok(lines.length >= 2, `Accepted lines: ${lines.length} (fetch batches and beacons)`);
  t.equal(new Set(lines.map((l) => l.data.requestId)).size, lines.length, 'one line per batch');
  t.equal(
    lines.reduce((n, l) => n + l.data.accepted, 0),
    rows.length,
    'the lines account for every stored event',
  );
  t.equal(lines.length, ingestRequests(), 'as many lines as answered ingest requests');

  t.same(
    consoleErrors.filter((m) => !/404|boom string|kaboom|after fetch/.test(m)),
    [],
    'no other console errors (CORS, CSP, SDK bugs)',
  );

  await readBackThroughTheApi(t, rows, startedAt);
});

/** The same visit as the dashboard sees it: issues, an issue's events, the log stream, stats, the visitor. */
async function readBackThroughTheApi(t: Test, rows: EventRow[], startedAt: Date): Promise<void> {
  const api = async (path: string) => {
    const res = await s.request('GET', `/v2/projects/site${path}`, { cookie: analyst.cookie });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    return res.body as { data: any };
  };
  const issues: {
    id: string;
    title: string;
    culprit: string;
    count: number;
    firstRelease: string | null;
    lastRelease: string | null;
    status: string;
  }[] = (await api('/issues')).data;
  const byTitle = (title: string) => issues.find((i) => i.title === title);
  t.same(
    issues.map((i) => i.title).sort(),
    ['Error: boom string', 'RangeError: after fetch 404', 'TypeError: kaboom from button'],
    'GET issues: one issue per error',
  );
  t.match(
    byTitle('TypeError: kaboom from button'),
    {
      status: 'open',
      count: 1,
      firstRelease: '1.2.3',
      lastRelease: '1.2.3',
      culprit: 'document.getElementById.onclick (/assets/shop.js)',
    },
    'the uncaught TypeError, its culprit without the content hash',
  );
  t.match(
    byTitle('Error: boom string'),
    { status: 'open', count: 1, firstRelease: '1.2.3', culprit: '' },
    'the string rejection (no stack, no culprit)',
  );

  const rangeIssue = byTitle('RangeError: after fetch 404');
  const [rangeEvent] = (await api(`/issues/${rangeIssue?.id}/events`)).data;
  const crumbs: { ts: string; kind: string; message: string }[] = rangeEvent?.breadcrumbs ?? [];
  t.match(
    crumbs.filter((c) => c.kind === 'fetch'),
    [{ message: new RegExp(`^404 ${escape(site.url)}/missing-resource$`) }],
    'GET issue events: the fetch breadcrumb, parsed',
  );
  t.same(
    crumbs.filter((c) => c.kind === 'navigation').map((c) => c.message),
    ['/', '/pricing', '/docs'],
    'the navigation breadcrumbs',
  );
  t.ok(
    crumbs.every((c) => Math.abs(Date.parse(c.ts) - Date.now()) < 120_000),
    'breadcrumb timestamps as ISO dates',
  );
  t.match(rangeEvent, {
    release: '1.2.3',
    page: { path: '/docs' },
    error: { type: 'RangeError', message: 'after fetch 404' },
    device: { browser: 'Chrome' },
  });

  const [typeEvent] = (await api(`/issues/${byTitle('TypeError: kaboom from button')?.id}/events`)).data;
  const frames: {
    file: string | null;
    line: number | null;
    column: number | null;
    function: string | null;
    inApp: boolean;
  }[] = typeEvent?.error.stack ?? [];
  t.match(
    frames[0],
    {
      file: `${site.url}${SHOP_SCRIPT}`,
      line: Number,
      column: Number,
      function: 'document.getElementById.onclick',
      inApp: true,
    },
    "the top frame is in the site's script, in app",
  );
  t.ok(
    typeEvent?.breadcrumbs.some((c: { kind: string; message: string }) => c.kind === 'click' && c.message === 'button'),
    'the click breadcrumb, parsed',
  );

  const logs: { message: string; data: { accepted?: number } }[] = (await api('/logs')).data;
  const accepted = logs.filter((l) => l.message.startsWith('Accepted '));
  t.ok(accepted.length >= 2, `GET logs: the 'Accepted …' lines (${accepted.length})`);
  t.equal(
    accepted.reduce((n, l) => n + (l.data.accepted ?? 0), 0),
    rows.length,
    'they account for every stored event',
  );

  const range = `from=${encodeURIComponent(startedAt.toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;
  const stats = (await api(`/stats?${range}`)).data;
  t.ok(stats.pageviews?.value >= 3, `GET stats: pageviews ${stats.pageviews?.value}`);
  t.equal(stats.visitors?.value, 1, 'one visitor');
  const pages: { value: string; pageviews: number }[] = (await api(`/breakdown/page?${range}&metrics=pageviews`)).data;
  t.same(
    pages.map((r) => [r.value, r.pageviews]).sort(),
    [
      ['/', 1],
      ['/docs', 1],
      ['/pricing', 1],
    ],
    'GET breakdown/page: one pageview per SPA path',
  );
  // The engagement report sent on page hide is the time on the last page (/docs) and its scroll depth.
  const timed: { value: string; timeOnPageMs: number; scrollDepth: number }[] = (
    await api(`/breakdown/page?${range}&metrics=pageviews,time_on_page,scroll_depth`)
  ).data;
  const docs = timed.find((r) => r.value === '/docs');
  t.ok(
    docs && docs.timeOnPageMs > 0,
    `GET breakdown/page: time on /docs from the engagement report (${docs?.timeOnPageMs} ms)`,
  );
  t.ok(
    timed.every((r) => r.timeOnPageMs > 0),
    'every page has a time on page (the next pageview, or the report)',
  );

  const overview = (await api('/overview')).data;
  t.ok(
    overview.speed.lcp > 0 && overview.speed.ttfb > 0,
    `GET overview: Web Vitals p75 (lcp ${overview.speed.lcp} ms, ttfb ${overview.speed.ttfb} ms)`,
  );
  t.equal(overview.errors.openIssues, 3, 'GET overview: three open issues');

  // The visit's vitals through the speed reads: the summary, the landing route, and the LCP element.
  const vitals = (await api(`/speed?${range}`)).data;
  t.ok(
    vitals.metrics.lcp.samples >= 1 && vitals.metrics.fcp.samples >= 1 && vitals.metrics.ttfb.samples >= 1,
    `GET speed: LCP, FCP and TTFB samples (score ${vitals.score}, ${vitals.rating})`,
  );
  t.equal(vitals.metrics.lcp.value, (await speed()).find((r) => r.lcp !== null)?.lcp, 'GET speed: the LCP measured');
  t.ok(Number.isInteger(vitals.score) && vitals.metrics.ttfb.score === null, 'a score; TTFB rated, not scored');
  const routes = (await api(`/speed/routes?${range}&minShare=0`)).data;
  t.match(routes, [{ route: '/', samples: Number, lcp: { samples: 1 } }], 'GET speed/routes: the landing route');
  const [lcpRow]: { element: string | null }[] =
    await sql`select element from speed_samples where project_id = 'site' and lcp is not null`;
  t.ok(lcpRow?.element, `the SDK reported the LCP element (${lcpRow?.element})`);
  const elements = (await api(`/speed/elements?${range}&metric=lcp`)).data;
  t.match(elements, [{ element: lcpRow!.element, samples: 1, value: vitals.metrics.lcp.value }], 'GET speed/elements');

  const visitor = (await api(`/visitors/${rows[0]?.visitor_id}`)).data;
  t.match(
    visitor,
    {
      pageviews: 3,
      sessions: 1,
      isInternal: false,
      device: { browser: 'Chrome' },
      bot: { verdict: 'human', signals: { webdriver: false, headless: false } },
    },
    "GET visitor: the visitor's pageviews and a human verdict",
  );
  t.ok(visitor.bot.score < 25, `bot score ${visitor.bot.score}`);
}

t.test('errors from a headless bot and from a localhost page are stored but open no issue', async (t) => {
  const visits = [
    { project: 'bot-site', context: await browser.newContext({ userAgent: HEADLESS_UA }), url: `${site.url}/k/bot` },
    { project: 'local-site', context: human, url: `${site.localUrl}/k/local` }, // human, but on 127.0.0.1
  ];
  const before = ingestRequests();
  await Promise.all(
    visits.map(async (visit) => {
      const page = await visit.context.newPage();
      await page.goto(visit.url);
      await page.waitForFunction(() => typeof (window as unknown as { loupe?: unknown }).loupe === 'object');
      await page.mouse.move(40, 40);
      await page.click('#throw');
      await page.goto(`${new URL(visit.url).origin}/bye`); // leaving sends what is queued
      await page.close();
    }),
  );
  await settled(before + 2);
  const rows = await sql<
    { project_id: string; name: string; bot_score: number; is_localhost: boolean; issue_id: string | null }[]
  >`
    select project_id, name, bot_score, is_localhost, issue_id from events where project_id in ('bot-site', 'local-site') and name = 'error'`;
  const bot = rows.filter((r) => r.project_id === 'bot-site');
  const local = rows.filter((r) => r.project_id === 'local-site');
  t.equal(bot.length, 1, "the bot's error is stored");
  t.ok(
    bot.every((r) => r.bot_score >= 50 && !r.is_localhost && r.issue_id === null),
    'HeadlessChrome scores as a bot, and its error joins no issue',
  );
  t.equal(local.length, 1, 'the localhost error is stored');
  t.ok(
    local.every((r) => r.bot_score < 50 && r.is_localhost && r.issue_id === null),
    'a human on 127.0.0.1 is localhost, and the error joins no issue',
  );
  await visits[0]?.context.close();
  for (const id of ['bot-site', 'local-site']) {
    const issues = await s.request('GET', `/v2/projects/${id}/issues`, { cookie: analyst.cookie });
    t.same(issues.body?.data, [], `GET ${id} issues: none`);
  }
});

t.test('the ESM build: shutdown() restores window.fetch and every patch', async (t) => {
  const page = await browser.newPage();
  await page.goto(`${site.url}/esm`);
  const result = await page.waitForFunction(() => (window as unknown as { esmResult?: unknown }).esmResult, null, {
    timeout: 10_000,
  });
  t.same(await result.jsonValue(), {
    loadedWithoutTag: true,
    wrapped: true,
    fetchRestored: true,
    pushStateRestored: true,
    sentAfterShutdown: false,
    reinit: true,
  });
  await page.close();
  await settled(0); // the pageview its shutdown() sent by beacon
});

t.test('the widget build: panel, early stub calls, refused calls reported to the log stream', async (t) => {
  const before = ingestRequests();
  const page = await browser.newPage();
  await page.goto(`${site.url}/widget`);
  await settled(before + 1);
  const panel = await page.evaluate(() => {
    const root = document.querySelector('[data-loupe-widget]')?.shadowRoot;
    return {
      title: root?.querySelector('.h span')?.textContent ?? null,
      lines: [...(root?.querySelectorAll('li') ?? [])].map((li) => li.textContent ?? ''),
    };
  });
  t.match(panel.title, /^Loupe · [1-9]\d* sent$/, 'the panel counts accepted events');
  t.ok(
    panel.lines.some((l) => /validation: track\("pageview"\) not sent/.test(l)),
    'the refused call is listed',
  );
  t.ok(
    panel.lines.some((l) => l.includes('→ widget_ok')),
    'the sent event is listed',
  );
  // Refused just before the page is left: the report has to go out with the exit beacon.
  const beforeExit = ingestRequests();
  await page.evaluate(() =>
    (window as unknown as { loupe: { track: (name: string, props: object) => void } }).loupe.track('too_big', {
      note: 'x'.repeat(501),
    }),
  );
  await page.goto(`${site.url}/bye`);
  await settled(beforeExit + 1);
  await page.close();
  await settled(0);
  const rows = await sql<
    { name: string; props: Record<string, unknown> }[]
  >`select name, props from events where project_id = 'widget-site' order by ts`;
  t.same(
    rows
      .map((r) => r.name)
      .filter((n) => n !== 'speed' && n !== 'engagement')
      .sort(),
    ['pageview', 'queued_early', 'widget_ok'],
    'one pageview and the two custom events; the reserved name was not sent',
  );
  t.same(
    rows.find((r) => r.name === 'queued_early')?.props,
    { from: 'stub' },
    'a call queued on the stub before the script loaded',
  );
  const reports = await sql<{ level: string; kind: string; message: string; data: Record<string, unknown> }[]>`
    select level, kind, message, data from logs where project_id = 'widget-site' and source = 'sdk' order by id`;
  t.equal(reports.length, 2, 'two SDK reports');
  t.match(reports[0], {
    level: 'error',
    kind: 'pipeline',
    message: /^validation: track\("pageview"\) not sent/,
    data: { kind: 'validation' },
  });
  t.match(reports[1], {
    level: 'error',
    kind: 'pipeline',
    message: /^validation: track\("too_big"\) not sent: props\.note must be a string of at most 500/,
    data: { kind: 'validation', field: 'props.note' },
  });
});

type SpeedRow = { lcp: number | null; inp: number | null; cls: number | null; fcp: number | null; ttfb: number | null };

function events(): Promise<EventRow[]> {
  return sql<
    EventRow[]
  >`select id, name, path, props, release, bot_score, visitor_id, session_id, is_localhost, issue_id, browser
    from events where project_id = 'site' order by ts, received_at, id`;
}

function speed(): Promise<SpeedRow[]> {
  return sql<SpeedRow[]>`select lcp, inp, cls, fcp, ttfb from speed_samples where project_id = 'site'`;
}

function crumbs(event: EventRow | undefined): { ts: number; kind: string; message: string }[] {
  const text = typeof event?.props.breadcrumbs === 'string' ? event.props.breadcrumbs : '';
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ts, kind, ...rest] = line.split(' ');
      return { ts: Number(ts), kind: kind ?? '', message: rest.join(' ') };
    });
}

/** Waits until at least `atLeast` ingest requests were answered and none came for 1.5 s; returns the count. */
async function settled(atLeast: number, quietMs = 1500, ms = 20_000): Promise<number> {
  const deadline = Date.now() + ms;
  let count = ingestRequests();
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = ingestRequests();
    if (now !== count) [count, since] = [now, Date.now()];
    else if (count >= atLeast && Date.now() - since >= quietMs) return count;
    if (Date.now() > deadline) throw new Error(`ingest did not settle: ${count} requests, wanted at least ${atLeast}`);
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** POST /v2/ingest requests the server answered 202, from its request log. */
function ingestRequests(): number {
  return logLines
    .map((l) => JSON.parse(l) as { msg: string; path?: string; method?: string; status?: number })
    .filter((l) => l.msg === 'request' && l.method === 'POST' && l.path === '/v2/ingest' && l.status === 202).length;
}

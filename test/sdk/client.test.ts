import t from 'tap';
import { createClient, ingestUrl } from '../../src/sdk/browser/client.ts';
import type { Diagnostic } from '../../src/sdk/browser/types.ts';
import { fakeBrowser, recordingFetch, until } from '../sdk-support/fake-window.ts';

const options = { key: 'pk_test', host: 'https://loupe.example', release: '1.2.3', environment: 'production' as const };

t.test('ingest URL carries ?key= so the request needs no preflight', async (t) => {
  t.equal(ingestUrl({ key: 'pk_a', host: 'https://l.example/' }), 'https://l.example/v2/ingest?key=pk_a');
  t.equal(ingestUrl({ key: 'pk_a', host: 'https://l.example', proxyPath: '/_loupe/' }), '/_loupe/v2/ingest?key=pk_a');
});

t.test(
  'automatic pageviews: initial, SPA pushState/replaceState/popstate, no duplicate for the same path',
  async (t) => {
    const browser = fakeBrowser();
    const rec = recordingFetch();
    const client = createClient(options, browser.win, { fetch: rec.fetch, intervalMs: 10 });
    browser.navigate('/a');
    browser.navigate('/a?tab=2');
    browser.win.history.replaceState(null, '', '/a#x');
    browser.win.history.replaceState(null, '', '/b');
    browser.navigate('/start');
    browser.winTarget.dispatchEvent(new Event('popstate'));
    await client.flush();
    const events = rec.calls.flatMap((c) => c.body.events);
    const pageviews = events.filter((e) => e.name === 'pageview');
    t.same(
      pageviews.map((e) => e.page.path),
      ['/start', '/a', '/b', '/start'],
    );
    t.equal(pageviews[0].page.referrer, 'https://referrer.example/', 'first pageview: document.referrer');
    t.equal(pageviews[1].page.referrer, 'https://site.example/start', 'SPA pageview: the previous URL');
    t.equal(pageviews[0].release, '1.2.3');
    t.equal(pageviews[0].environment, 'production');
    t.same(pageviews[0].device, { screen: '1920x1080', viewport: '1280x720', language: 'en-GB' });
    t.same(pageviews[0].signals, { webdriver: false, headless: false, pointerEvents: false });
    t.ok(
      events.every((e) => e.visitor === pageviews[0].visitor),
      'one visitor id',
    );
    t.ok(new Set(events.map((e) => e.id)).size === events.length, 'unique event ids');
    t.ok(
      events.every((e) => /^[0-9a-v]{7}[0-9A-Za-z_-]{14}$/.test(e.id)),
      'time-ordered event ids (src/sdk/ids.ts)',
    );
    t.equal(
      parseInt(events[0].id.slice(0, 7), 32),
      Math.floor(Date.parse(events[0].ts) / 1000),
      'led by the second of the event',
    );
    t.equal(rec.calls[0]?.url, 'https://loupe.example/v2/ingest?key=pk_test');
    t.equal((rec.calls[0]?.init.headers as Record<string, string>)['Content-Type'], 'text/plain');
    t.equal(rec.calls[0]?.init.keepalive, true);
    client.shutdown();
  },
);

t.test('batches of 20 go at once; fewer wait for the timer', async (t) => {
  const browser = fakeBrowser();
  const rec = recordingFetch();
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: rec.fetch, intervalMs: 50 });
  for (let i = 0; i < 20; i++) client.track('click', { i });
  t.equal(rec.calls.length, 1, 'the 20th event triggers a send');
  t.equal(rec.calls[0]?.body.events.length, 20);
  client.track('later');
  t.equal(rec.calls.length, 1);
  await until(() => rec.calls.length === 2);
  t.same(
    rec.calls[1]?.body.events.map((e) => e.name),
    ['later'],
  );
  client.shutdown();
});

t.test('a failed batch is retried with the same event ids', async (t) => {
  const browser = fakeBrowser();
  const rec = recordingFetch([500, 'reject', 202]);
  const diagnostics: Diagnostic[] = [];
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: rec.fetch, intervalMs: 5 });
  client.onDiagnostic((d) => diagnostics.push(d));
  client.track('one');
  client.track('two');
  await until(() => rec.calls.length === 3, 10_000);
  const ids = rec.calls.map((c) => c.body.events.map((e) => e.id).join(','));
  t.equal(ids[0], ids[1]);
  t.equal(ids[1], ids[2]);
  t.same(
    diagnostics.map((d) => d.kind),
    ['failed', 'failed', 'sent'],
  );
  client.shutdown();
});

t.test('rejected events and 429 become diagnostics', async (t) => {
  const browser = fakeBrowser();
  const answers = [
    new Response('', { status: 429, headers: { 'Retry-After': '0' } }),
    Response.json(
      {
        accepted: 1,
        duplicates: 0,
        rejected: [
          {
            index: 1,
            code: 'LOUPE_INGEST_REJECTED',
            reason: 'VALIDATION_FAILED',
            field: 'props',
            message: 'props must be an object with at most 25 properties',
          },
        ],
      },
      { status: 202 },
    ),
  ];
  const fetchFn = (async () => answers.shift() ?? new Response('{}', { status: 202 })) as unknown as typeof fetch;
  const diagnostics: Diagnostic[] = [];
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: fetchFn, intervalMs: 5 });
  client.onDiagnostic((d) => diagnostics.push(d));
  client.track('a');
  client.track('b');
  await until(() => diagnostics.some((d) => d.kind === 'sent'));
  t.same(
    diagnostics.map((d) => d.kind),
    ['rate-limited', 'rejected', 'sent'],
  );
  t.match(diagnostics[1]?.message, /"b" rejected: props must be/);
  client.shutdown();
});

t.test('track validates names and props', async (t) => {
  const browser = fakeBrowser();
  const rec = recordingFetch();
  const diagnostics: Diagnostic[] = [];
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: rec.fetch });
  client.onDiagnostic((d) => diagnostics.push(d));
  client.track('pageview');
  client.track('');
  client.track('too_many', Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, i])));
  client.track('long', { text: 'x'.repeat(501) });
  client.track('nested', { obj: {} as unknown as string });
  await client.flush();
  t.equal(rec.calls.length, 0);
  t.same(
    diagnostics.map((d) => d.kind),
    ['validation', 'validation', 'validation', 'validation', 'validation'],
  );
  t.match(diagnostics[2]?.message, /at most 25 properties/);
  client.shutdown();
});

t.test('identify, group and setExperiment ride on later events and persist', async (t) => {
  const browser = fakeBrowser();
  const rec = recordingFetch();
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: rec.fetch });
  client.identify('u_1', { plan: 'pro' });
  client.group('company', 'acme');
  client.setExperiment('checkout', 'b');
  client.track('bought');
  await client.flush();
  const [event] = rec.calls[0]!.body.events;
  t.same(event.user, { id: 'u_1', traits: { plan: 'pro' } });
  t.same(event.groups, { company: 'acme' });
  t.same(event.experiments, { checkout: 'b' });
  t.ok(event.session, 'a session id');
  client.shutdown();
  const again = createClient({ ...options, autoPageviews: false }, fakeBrowser({ storage: browser.storage }).win, {
    fetch: rec.fetch,
  });
  again.identify(null);
  again.track('second');
  await again.flush();
  const second = rec.calls[1]!.body.events[0];
  t.equal(second.visitor, event.visitor, 'the visitor id persists');
  t.equal(second.session, event.session, 'the session continues');
  t.notOk(second.user, 'identify(null) clears the user');
  t.same(second.groups, { company: 'acme' });
  again.shutdown();
});

t.test('page hide sends engagement and flushes by sendBeacon', async (t) => {
  const browser = fakeBrowser();
  const rec = recordingFetch();
  const client = createClient(options, browser.win, { fetch: rec.fetch, intervalMs: 60_000 });
  client.track('seen');
  await new Promise((resolve) => setTimeout(resolve, 30));
  (browser.win as unknown as { scrollY: number }).scrollY = 780;
  browser.winTarget.dispatchEvent(new Event('scroll'));
  browser.setVisibility('hidden');
  t.equal(rec.calls.length, 0, 'no fetch: the beacon carries it');
  t.equal(browser.beacons.length, 1);
  t.equal(browser.beacons[0]?.url, 'https://loupe.example/v2/ingest?key=pk_test');
  const events = JSON.parse(browser.beacons[0]!.body).events;
  t.same(
    events.map((e: { name: string }) => e.name),
    ['pageview', 'seen', 'engagement'],
  );
  const engagement = events[2];
  t.ok(engagement.props.timeMs >= 20, `timeMs ${engagement.props.timeMs}`);
  t.equal(engagement.props.scrollDepth, 75);
  t.equal(engagement.page.path, '/start');
  browser.winTarget.dispatchEvent(new Event('pagehide'));
  t.equal(browser.beacons.length, 1, 'no second engagement without new visible time');
  client.shutdown();
});

t.test('the offline queue is bounded, oldest dropped, and kept in localStorage', async (t) => {
  const browser = fakeBrowser();
  const down = (async () => {
    throw new TypeError('offline');
  }) as unknown as typeof fetch;
  const diagnostics: Diagnostic[] = [];
  (browser.win.navigator as unknown as { onLine: boolean }).onLine = false;
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: down, maxQueue: 200 });
  client.onDiagnostic((d) => diagnostics.push(d));
  for (let i = 0; i < 230; i++) client.track('e', { i });
  const stored = JSON.parse(browser.storage.get('loupe.queue.pk_test') ?? '[]');
  t.equal(stored.length, 200);
  t.equal(stored[0].props.i, 30, 'the oldest were dropped');
  t.ok(diagnostics.some((d) => d.kind === 'dropped'));
  client.shutdown();

  const rec = recordingFetch();
  const next = createClient({ ...options, autoPageviews: false }, fakeBrowser({ storage: browser.storage }).win, {
    fetch: rec.fetch,
    intervalMs: 5,
  });
  await until(() => rec.calls.reduce((n, c) => n + c.body.events.length, 0) >= 200);
  const ids = rec.calls.flatMap((c) => c.body.events.map((e) => e.id));
  t.same(
    ids,
    stored.map((e: { id: string }) => e.id),
    'replayed with their original ids',
  );
  await until(() => !browser.storage.has('loupe.queue.pk_test'));
  next.shutdown();
});

t.test('respectDnt sends nothing and says why', async (t) => {
  const browser = fakeBrowser({ doNotTrack: '1' });
  const rec = recordingFetch();
  const diagnostics: Diagnostic[] = [];
  const client = createClient({ ...options, respectDnt: true, autoPageviews: false }, browser.win, {
    fetch: rec.fetch,
  });
  client.onDiagnostic((d) => diagnostics.push(d));
  client.track('x');
  await client.flush();
  t.equal(rec.calls.length, 0);
  t.equal(diagnostics[0]?.kind, 'dnt');
  client.shutdown();
});

t.test('bot signals: headless user agent, no plugins and languages, pointer seen', async (t) => {
  const browser = fakeBrowser({ userAgent: 'Mozilla/5.0 HeadlessChrome/126.0' });
  const rec = recordingFetch();
  const client = createClient({ ...options, autoPageviews: false }, browser.win, { fetch: rec.fetch });
  client.track('before');
  browser.winTarget.dispatchEvent(new Event('pointermove'));
  client.track('after');
  await client.flush();
  const [before, after] = rec.calls[0]!.body.events;
  t.same(before.signals, { webdriver: false, headless: true, pointerEvents: false });
  t.same(after.signals, { webdriver: false, headless: true, pointerEvents: true });
  client.shutdown();

  const bare = fakeBrowser();
  Object.assign(bare.win.navigator, { plugins: { length: 0 }, languages: [], webdriver: true });
  const c2 = createClient({ ...options, autoPageviews: false }, bare.win, { fetch: rec.fetch });
  c2.track('x');
  await c2.flush();
  t.same(rec.calls[1]!.body.events[0].signals, { webdriver: true, headless: true, pointerEvents: false });
  c2.shutdown();
});

t.test('shutdown removes every listener and history patch', async (t) => {
  const browser = fakeBrowser();
  const { pushState, replaceState } = browser.win.history;
  const client = createClient(options, browser.win, { fetch: recordingFetch().fetch });
  t.not(browser.win.history.pushState, pushState);
  t.ok(browser.winTarget.listeners > 0);
  client.shutdown();
  client.shutdown();
  t.equal(browser.win.history.pushState, pushState);
  t.equal(browser.win.history.replaceState, replaceState);
  t.equal(browser.winTarget.listeners, 0);
  t.equal(browser.doc.listeners, 0);
});

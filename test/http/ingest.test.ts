// Ingest over HTTP: keys and origins, per-event validation with the rest of the batch accepted,
// de-duplication under retries, enrichment stored, sessions across the 30-minute gap, rate limiting.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const owner = await s.member('owner');
await s.request('PATCH', '/v2/projects/site', { ...owner, body: { allowedOrigins: ['https://shop.example.com'] } });
await s.loupe.services.projects.refresh();
const sql = s.loupe.services.sql;
const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const browser = { 'x-project-key': site.publicKey, origin: 'https://shop.example.com', 'user-agent': chrome };
const send = (body: unknown, headers: Record<string, string> = browser) =>
  s.request('POST', '/v2/ingest', { body, headers });
let n = 0;
const ev = (extra: Record<string, unknown> = {}) => ({
  id: `e${++n}`,
  name: 'pageview',
  visitor: 'v1',
  page: {
    url: 'https://shop.example.com/cart?utm_source=news&utm_medium=email',
    referrer: 'https://www.google.com/search?q=x',
  },
  ...extra,
});

t.test('keys and origins', async (t) => {
  t.equal((await send(ev(), { origin: 'https://shop.example.com' })).status, 401, 'no key');
  t.equal((await send(ev(), { ...browser, 'x-project-key': 'pk_unknown' })).status, 401, 'unknown key');
  t.equal((await send(ev(), { ...browser, origin: 'https://evil.example.com' })).status, 403, 'origin not allowed');
  const byQuery = await s.request('POST', `/v2/ingest?key=${site.publicKey}`, {
    rawBody: JSON.stringify(ev()),
    headers: { 'content-type': 'text/plain', origin: 'https://shop.example.com' },
  });
  t.equal(byQuery.status, 202, '?key= with a text/plain body (sendBeacon)');
  t.same(byQuery.body, { accepted: 1, duplicates: 0, rejected: [] });
  const secret = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: ev({ id: 'secret-ctx', visitor: undefined, context: { ip: '81.2.69.142', userAgent: chrome } }),
  });
  t.equal(secret.status, 202, 'secret key without an origin');
  t.equal(
    (await send(ev({ context: { ip: '1.1.1.1' } }))).body.rejected[0].field,
    'context',
    'context only with a secret key',
  );
});

t.test('each bad event is rejected on its own; the rest is accepted', async (t) => {
  const props = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, i]));
  const res = await send({
    events: [
      ev(),
      ev({ props }),
      ev({ name: '' }),
      ev({ ts: new Date(Date.now() - 2 * 86_400_000).toISOString() }),
      ev({ props: { big: 'x'.repeat(501) } }),
      ev(),
    ],
  });
  t.equal(res.status, 202);
  t.equal(res.body.accepted, 2);
  t.same(
    res.body.rejected.map((r: { index: number; field: string }) => [r.index, r.field]),
    [
      [1, 'props'],
      [2, 'name'],
      [3, 'ts'],
      [4, 'props.big'],
    ],
  );
  t.match(res.body.rejected[0], {
    code: 'LOUPE_INGEST_REJECTED',
    reason: 'VALIDATION_FAILED',
    message: 'props must be an object with at most 25 properties',
  });
  const tooMany = await send({ events: Array.from({ length: 501 }, () => ev()) });
  t.equal(tooMany.status, 400, '501 events');
  t.equal(tooMany.body.error.details[0].field, 'body.events');
  const fivehundred = await send({ events: Array.from({ length: 500 }, () => ev()) });
  t.equal(fivehundred.body.accepted, 500, '500 events');
  const atLimits = await send({
    events: [
      ev({ props: Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i])) }),
      ev({ props: { text: 'x'.repeat(500), [`${'k'.repeat(64)}`]: true } }),
    ],
  });
  t.same(
    [atLimits.body.accepted, atLimits.body.rejected],
    [2, []],
    '25 props, a value of 500 characters and a key of 64 are accepted',
  );
  t.equal((await send({ events: 'nope' })).status, 400);
});

t.test('a request refused whole leaves a line: an origin not allowed, a batch over 500', async (t) => {
  t.equal((await send(ev(), { ...browser, origin: 'https://copycat.example.net' })).status, 403);
  t.equal((await send({ events: Array.from({ length: 501 }, () => ev()) })).status, 400);
  // A refusal's line goes with the project's next flush: an accepted request's answer comes after it.
  t.equal((await send(ev())).status, 202);
  const lines = (await s.request('GET', '/v2/projects/site/logs?q=Refused%20a%20request', owner)).body.data as {
    kind: string;
    level: string;
    message: string;
    data: Record<string, unknown>;
  }[];
  t.match(
    lines.findLast((l) => l.kind === 'auth'),
    {
      level: 'warn',
      message: "Refused a request: Origin https://copycat.example.net is not in this project's allowedOrigins.",
      data: { code: 'FORBIDDEN', origin: 'https://copycat.example.net', requestId: String },
    },
  );
  t.match(
    lines.findLast((l) => l.kind === 'ingest'),
    {
      level: 'warn',
      message: 'Refused a request: at most 500 events a batch (got 501)',
      data: { code: 'VALIDATION_FAILED', field: 'body.events' },
    },
  );
});

t.test('an event without a page has no path (null, not "/"), in storage and in a session\'s events', async (t) => {
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { events: [{ id: 'pageless', name: 'signup', visitor: 'backend-only', context: { ip: '81.2.69.142' } }] },
  });
  t.equal(res.body.accepted, 1);
  const [row] = await sql<
    { path: string | null; session_id: string }[]
  >`select path, session_id from events where project_id = 'site' and id = 'pageless'`;
  t.equal(row!.path, null);
  const listed = await s.request('GET', `/v2/projects/site/sessions/${row!.session_id}/events`, owner);
  t.same(listed.body.data[0].page, { path: null, route: null, title: null, referrer: null });
});

t.test('a retried batch counts nothing twice', async (t) => {
  const batch = { events: [ev({ id: 'retry-1' }), ev({ id: 'retry-2' })] };
  t.same((await send(batch)).body, { accepted: 2, duplicates: 0, rejected: [] });
  t.same((await send(batch)).body, { accepted: 0, duplicates: 2, rejected: [] });
  const parallel = await Promise.all([1, 2, 3].map(() => send({ events: [ev({ id: 'race' })] })));
  t.equal(
    parallel.reduce((a, r) => a + r.body.accepted, 0),
    1,
    'concurrent retries store one',
  );
  const [{ count }] = await sql<
    { count: number }[]
  >`select count(*)::int as count from events where project_id = 'site' and id in ('retry-1', 'retry-2', 'race')`;
  t.equal(count, 3);
});

t.test('an event sent without an id gets a time-ordered one of the server', async (t) => {
  const before = Math.floor(Date.now() / 1000);
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { name: 'server-made-id', visitor: 'vsrv', context: { ip: '81.2.69.142', userAgent: chrome } },
  });
  t.same(res.body, { accepted: 1, duplicates: 0, rejected: [] });
  const [row] = await sql<
    { id: string }[]
  >`select id from events where project_id = 'site' and name = 'server-made-id'`;
  t.match(row?.id, /^srv_[0-9a-v]{7}[0-9A-Za-z_-]{14}$/);
  const second = parseInt(row!.id.slice(4, 11), 32);
  t.ok(second >= before && second <= Math.floor(Date.now() / 1000), 'led by the second it arrived in');
});

t.test('enrichment is stored', async (t) => {
  await send(ev({ id: 'enriched', visitor: 'venrich', device: { screen: '1920x1080', language: 'en-GB' } }));
  const [row] = await sql`select * from events where project_id = 'site' and id = 'enriched'`;
  t.match(row, {
    name: 'pageview',
    path: '/cart',
    host: 'shop.example.com',
    utm_source: 'news',
    utm_medium: 'email',
    referrer_domain: 'google.com',
    browser: 'Chrome',
    os: 'Windows',
    device: 'desktop',
    screen: '1920x1080',
    language: 'en-GB',
    environment: 'production',
    is_internal: false,
    is_localhost: false,
  });
  const [geo] = await sql`select country, visitor_id from events where project_id = 'site' and id = 'secret-ctx'`;
  t.equal(geo.country, 'GB', 'geo from the forwarded context ip (81.2.69.142)');
  t.match(geo.visitor_id, /^h_/, 'no SDK id: a keyed hash, never the raw IP');
  const raw = JSON.stringify(await sql`select * from events where project_id = 'site'`);
  t.notOk(raw.includes('81.2.69.142'), 'raw IPs are never stored');
  const [internal] = await (async () => {
    await send(ev({ id: 'internal' }), { ...browser, cookie: owner.cookie });
    return sql`select is_internal from events where project_id = 'site' and id = 'internal'`;
  })();
  t.equal(internal.is_internal, true, "an owner's session cookie marks internal traffic");
  const cookies: [string, string, boolean][] = [
    ['an admin of the project', (await s.member('admin', ['site'])).cookie, true],
    ['an admin of another project', (await s.member('admin', ['elsewhere'])).cookie, false],
    ['an analyst', (await s.member('analyst', ['site'])).cookie, false],
    ['a viewer', (await s.member('viewer', ['site'])).cookie, false],
    ['an unknown session', 'loupe.session_token=not-a-session-0123456789', false],
  ];
  for (const [who, cookie, expected] of cookies) {
    const id = `internal-${who.replaceAll(' ', '-')}`;
    // A visitor of their own each: v1 is internal now, and so are its later events, whatever they carry.
    t.equal((await send(ev({ id, visitor: id }), { ...browser, cookie })).status, 202, `${who}: accepted`);
    const [row] = await sql`select is_internal from events where project_id = 'site' and id = ${id}`;
    t.equal(row!.is_internal, expected, `${who}: ${expected ? 'internal' : 'not internal'}`);
  }
  await send(ev({ id: 'headless' }), { ...browser, 'user-agent': chrome.replace('Chrome/', 'HeadlessChrome/') });
  const [bot] = await sql`select bot_score from events where project_id = 'site' and id = 'headless'`;
  t.ok(bot.bot_score >= 50, 'headless is a bot');
});

t.test('sessions across the 30-minute gap', async (t) => {
  const base = Date.now() - 3 * 3_600_000;
  const at = (min: number) => new Date(base + min * 60_000).toISOString();
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: {
      events: [
        { id: 's1', name: 'pageview', visitor: 'vs', ts: at(0), page: { path: '/a' } },
        { id: 's2', name: 'pageview', visitor: 'vs', ts: at(10), page: { path: '/b' } },
        { id: 's3', name: 'signup', visitor: 'vs', ts: at(39), page: { path: '/b' } },
        { id: 's4', name: 'pageview', visitor: 'vs', ts: at(70), page: { path: '/c' } },
      ],
    },
  });
  t.equal(res.body.accepted, 4);
  await s.settle();
  const sessions =
    await sql`select pageviews, events, entry_page, exit_page, extract(epoch from last_activity - started_at)::int as secs
    from sessions where project_id = 'site' and visitor_id = 'vs' order by started_at`;
  t.same(
    sessions.map((r) => ({ ...r })),
    [
      { pageviews: 2, events: 1, entry_page: '/a', exit_page: '/b', secs: 39 * 60 },
      { pageviews: 1, events: 0, entry_page: '/c', exit_page: '/c', secs: 0 },
    ],
  );
});

t.test('the retention job drops events past retentionDays', async (t) => {
  const old = new Date(Date.now() - 400 * 86_400_000);
  await s.loupe.services.sql`select loupe_ensure_events_partition(${old})`;
  await sql`insert into events (project_id, ts, id, name, visitor_id, session_id) values ('site', ${old}, 'ancient', 'pageview', 'v', 's')`;
  // Kept range values of the read rollups: one computed eight days ago goes, a fresh one stays.
  for (const [from, computed] of [
    ['2026-01-01', '8 days'],
    ['2026-02-01', '1 hour'],
  ]) {
    await sql`insert into rollup_range_values (project_id, from_day, to_day, sel, kind, build_seq, value, computed_at)
      values ('site', ${from}::date, ${from}::date + 30, 0, 'visitors', 1, '7', now() - ${computed}::interval)`;
  }
  const run = await s.request('POST', '/v2/admin/jobs/retention', { token: 'cron-secret-for-tests-0123456789' });
  t.equal(run.status, 200);
  t.ok(run.body.data.summary.events >= 1, 'deleted');
  t.equal(run.body.data.summary.rangeValues, 1, 'one range value dropped');
  // The background builder may have kept values of its own meanwhile (fresh, so kept too).
  const ranges = await sql`select from_day::text as from from rollup_range_values where project_id = 'site'`;
  const froms = ranges.map((r) => r.from);
  t.ok(froms.includes('2026-02-01'), 'the fresh one kept');
  t.notOk(froms.includes('2026-01-01'), 'the old one dropped');
  const left = await sql`select id from events where project_id = 'site' and id = 'ancient'`;
  t.equal(left.length, 0);
  const kept = await sql`select count(*)::int as n from events where project_id = 'site'`;
  t.ok(kept[0]!.n > 0, 'recent events stay');
});

t.test('more validation rules and limits', async (t) => {
  const ahead = new Date(Date.now() + 10 * 60_000).toISOString();
  const res = await send({
    events: [
      ev({ ts: ahead }),
      ev({ name: 'x'.repeat(65) }),
      ev({ name: 'speed' }),
      ev({ name: 'speed', vitals: { lcp: 1200, element: 'img.hero' } }),
      ev({ name: 'engagement', props: { scrollDepth: 50 } }),
      ev({ name: 'engagement', props: { timeMs: 5000, scrollDepth: 140 } }),
      ev({ name: 'engagement', props: { timeMs: 5000, scrollDepth: 60 } }),
      ev({ environment: 'staging' }),
      ev({ id: 'i'.repeat(65) }),
      ev({ props: { nested: { no: true } } }),
      ev({
        name: 'error',
        props: {
          message: 'boom',
          type: 'Error',
          stack: 'Error: boom\n    at f (https://a.example/x.js:1:2)\n'.repeat(40),
        },
      }),
      ev({ name: 'checkout', props: { stack: 's'.repeat(501) } }),
      ev({
        name: 'error',
        props: { message: 'long', type: 'Error', stack: 's'.repeat(4096), breadcrumbs: `1 click ${'b'.repeat(4086)}` },
      }),
      ev({ name: 'error', props: { message: 'longer', type: 'Error', stack: 's'.repeat(4097) } }),
    ],
  });
  t.same(
    res.body.rejected.map((r: { index: number; field: string }) => [r.index, r.field]),
    [
      [0, 'ts'],
      [1, 'name'],
      [2, 'vitals'],
      [4, 'props.timeMs'],
      [5, 'props.scrollDepth'],
      [7, 'environment'],
      [8, 'id'],
      [9, 'props.nested'],
      [11, 'props.stack'],
      [13, 'props.stack'],
    ],
  );
  t.match(
    res.body.rejected[8].message,
    /stack up to 4096 only on an error event/,
    'a stack over 500 characters only on an error',
  );
  t.equal(res.body.accepted, 4, 'speed with vitals, engagement, errors with a long stack (up to 4096) and breadcrumbs');

  const named = await send({ events: [{ id: 'no-name', visitor: 'v1' }, ev({ name: 5 })] });
  t.same(
    named.body.rejected.map((r: { field: string; message: string }) => [r.field, r.message]),
    [
      ['name', 'name is required'],
      ['name', 'name must be a string'],
    ],
    'a missing name and a name that is not a string are told apart, the field named once',
  );
  const [err] =
    await sql`select props from events where project_id = 'site' and name = 'error' order by received_at desc limit 1`;
  t.ok(err!.props.stack.length <= 2048, 'the stack is scrubbed and cut to 2048 before storing');
  const [speed] = await sql`select lcp, element from speed_samples where project_id = 'site' order by ts desc limit 1`;
  t.match(speed, { lcp: 1200, element: 'img.hero' });

  const huge = JSON.stringify({ events: [ev({ props: { a: 'x'.repeat(400) } })], pad: 'x'.repeat(1024 * 1024) });
  const big = await s.request('POST', '/v2/ingest', {
    rawBody: huge,
    headers: { ...browser, 'content-type': 'text/plain' },
  });
  t.equal(big.status, 413, 'a body over 1 MiB');
  const event = JSON.stringify(ev({ id: 'one-mib' }));
  const exact = `{"events": [${event}], "pad": "${'x'.repeat(1024 * 1024 - event.length - '{"events": [], "pad": ""}'.length)}"}`;
  t.equal(Buffer.byteLength(exact), 1024 * 1024);
  const atMost = await s.request('POST', '/v2/ingest', {
    rawBody: exact,
    headers: { ...browser, 'content-type': 'text/plain' },
  });
  t.same([atMost.status, atMost.body?.accepted], [202, 1], 'a body of exactly 1 MiB is accepted');
  t.equal(
    (
      await s.request('POST', '/v2/ingest', {
        rawBody: '{"events": [',
        headers: { ...browser, 'content-type': 'text/plain' },
      })
    ).status,
    400,
    'malformed JSON',
  );
});

t.test('ts windows: up to their edges accepted, past them rejected with the window named', async (t) => {
  const windows = await s.project('windows', 'public');
  await s.request('PATCH', '/v2/projects/windows', { ...owner, body: { retentionDays: 30 } });
  await s.loupe.services.projects.refresh();
  const now = Date.now();
  const at = (ms: number) => new Date(now + ms).toISOString();
  const minute = 60_000,
    hour = 60 * minute,
    day = 24 * hour;
  const pub = await send(
    {
      events: [
        ev({ ts: at(4 * minute) }),
        ev({ ts: at(6 * minute) }),
        ev({ ts: at(-23 * hour) }),
        ev({ ts: at(-25 * hour) }),
      ],
    },
    { ...browser, 'x-project-key': windows.publicKey, origin: 'https://anywhere.example.com' },
  );
  t.equal(pub.body.accepted, 2, 'a public key: 4 minutes ahead and 23 hours back');
  t.same(
    pub.body.rejected.map((r: { index: number; field: string; message: string }) => [r.index, r.field, r.message]),
    [
      [1, 'ts', 'ts must be at most 5 minutes in the future'],
      [3, 'ts', 'ts must lie within the last 24 hours for a public key'],
    ],
  );
  const context = { ip: '81.2.69.142', userAgent: chrome };
  const secret = await s.request('POST', '/v2/ingest', {
    token: windows.secretKey,
    body: {
      events: [
        ev({ ts: at(-29 * day), context }),
        ev({ ts: at(-31 * day), context }),
        ev({ ts: at(6 * minute), context }),
      ],
    },
  });
  t.equal(secret.body.accepted, 1, 'a secret key: 29 days back, within the 30 days of retention');
  t.same(
    secret.body.rejected.map((r: { index: number; message: string }) => [r.index, r.message]),
    [
      [1, "ts must lie within the project's retention (30 days)"],
      [2, 'ts must be at most 5 minutes in the future'],
    ],
  );
  const stored = await sql<{ n: number }[]>`select count(*)::int as n from events where project_id = 'windows'`;
  t.equal(stored[0]!.n, 3, 'the accepted ones are stored, the rejected ones are not');
});

t.test(
  "ts with an hour-only offset is read as sent; a day its month does not have is that event's rejection",
  async (t) => {
    const now = Date.now();
    const local = (offsetHours: number) => new Date(now + offsetHours * 3_600_000).toISOString().slice(0, 23);
    const res = await send({
      events: [
        ev({ id: 'offset-minus', ts: `${local(-5)}-05` }),
        ev({ id: 'offset-plus', ts: `${local(1)}+01` }),
        ev({ id: 'no-such-day', visitor: 'calendar', ts: '2026-02-31T10:00:00Z' }),
      ],
    });
    t.equal(res.status, 202, 'one bad ts does not sink the batch');
    t.equal(res.body.accepted, 2);
    t.same(
      res.body.rejected.map((r: { index: number; field: string; message: string }) => [r.index, r.field, r.message]),
      [[2, 'ts', 'ts must be an ISO 8601 date-time on a day its month has']],
    );
    const stored = await sql<
      { id: string; ts: Date }[]
    >`select id, ts from events where project_id = 'site' and id in ('offset-minus', 'offset-plus') order by id`;
    t.same(
      stored.map((r) => [r.id, r.ts.getTime()]),
      [
        ['offset-minus', now],
        ['offset-plus', now],
      ],
      'both at the instant they name',
    );
    const lines = (await s.request('GET', '/v2/projects/site/logs?visitor=calendar', owner)).body.data as {
      visitor: string;
      data: { field: string };
    }[];
    t.match(
      lines,
      [{ visitor: 'calendar', data: { field: 'ts' } }],
      "the rejection's line is found under the visitor the event named",
    );
  },
);

t.test('an error event is scrubbed again before it is stored', async (t) => {
  const token = 'tok_' + 'A1b2C3d4E5f6G7h8I9j0K1';
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: ev({
      id: 'scrub-me',
      name: 'error',
      context: { ip: '81.2.69.142', userAgent: chrome },
      props: {
        type: 'TypeError',
        message: `Cannot read order 12345678 of jane.doe@example.com with ${token}`,
        stack:
          'TypeError: x\n    at pay (https://shop.example.com/assets/app.js?session=secret:10:20)\n    at https://shop.example.com/assets/vendor.js:1:123456',
        breadcrumbs: `${Date.now()} fetch GET /api/orders?id=42 from jane.doe@example.com\n${Date.now()} click order 98765432`,
      },
    }),
  });
  t.equal(res.status, 202);
  const [row] = await sql<
    { props: Record<string, string> }[]
  >`select props from events where project_id = 'site' and id = 'scrub-me'`;
  t.equal(row!.props.message, 'Cannot read order [x] of [x] with [x]', 'digits, an e-mail address and a token masked');
  t.equal(
    row!.props.stack,
    'TypeError: x\n    at pay (https://shop.example.com/assets/app.js:10:20)\n    at https://shop.example.com/assets/vendor.js:1:123456',
    "the query string dropped; a frame's line and column kept",
  );
  t.same(
    row!.props.breadcrumbs.split('\n').map((l) => l.slice(l.indexOf(' ') + 1)),
    ['fetch GET /api/orders from [x]', 'click order [x]'],
    'breadcrumbs scrubbed line by line',
  );
});

t.test('wildcard origins, and SDK reports only with widgetReports on', async (t) => {
  await s.request('PATCH', '/v2/projects/site', { ...owner, body: { allowedOrigins: ['https://*.example.com'] } });
  t.equal((await send(ev(), { ...browser, origin: 'https://blog.example.com' })).status, 202, 'a subdomain');
  t.equal((await send(ev(), { ...browser, origin: 'https://example.com.evil.net' })).status, 403, 'not a lookalike');
  const report = { level: 'warn', message: 'event dropped: props too large', data: { index: 0 } };
  // A report's line goes with the project's next flush (it waits for no acknowledgement): another
  // request's answer comes after that flush, so what the report wrote is committed by then.
  const sdkLines = async () => {
    await send({ events: [ev()] });
    return sql<
      { level: string; source: string; message: string }[]
    >`select level, source, message from logs where project_id = 'site' and source = 'sdk'`;
  };
  await send({ events: [ev()], reports: [report] });
  t.same(await sdkLines(), [], 'off: not logged');
  await s.request('PATCH', '/v2/projects/site', { ...owner, body: { widgetReports: true } });
  await send({ events: [ev()], reports: [report] });
  t.match(
    await sdkLines(),
    [{ level: 'warn', source: 'sdk', message: 'event dropped: props too large' }],
    'on: one line',
  );
});

t.test(
  'a change that follows an answer sees its sessions: marking a visitor internal right after ingest',
  async (t) => {
    const res = await s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      body: { events: [{ id: 'int1', name: 'pageview', visitor: 'fresh-visitor', page: { path: '/x' } }] },
    });
    t.equal(res.body.accepted, 1);
    // No read in between: the session is still a delta in the actor when the PATCH arrives.
    const marked = await s.request('PATCH', '/v2/projects/site/visitors/fresh-visitor', {
      cookie: owner.cookie,
      body: { isInternal: true },
    });
    t.same(marked.body.data, { id: 'fresh-visitor', isInternal: true, eventsUpdated: 1, sessionsUpdated: 1 });
    const [row] =
      await sql`select is_internal from sessions where project_id = 'site' and visitor_id = 'fresh-visitor'`;
    t.equal(row?.is_internal, true, 'the session row exists and is marked');
  },
);

t.test('a visitor marked internal: their later events are internal, and unmarked, human again', async (t) => {
  const send = (id: string) =>
    s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      body: { id, name: 'pageview', visitor: 'teammate', page: { path: '/admin' } },
    });
  const internal = async () =>
    Object.fromEntries(
      (
        await sql<{ id: string; is_internal: boolean }[]>`
    select id, is_internal from events where project_id = 'site' and visitor_id = 'teammate'`
      ).map((r) => [r.id, r.is_internal]),
    );
  t.equal((await send('team-1')).status, 202);
  await s.request('PATCH', '/v2/projects/site/visitors/teammate', { cookie: owner.cookie, body: { isInternal: true } });
  await send('team-2');
  t.same(
    await internal(),
    { 'team-1': true, 'team-2': true },
    "the event sent after the mark, without a member's cookie, is internal too",
  );
  const online = (await s.request('GET', '/v2/projects/site/realtime?include=visitors', owner)).body.visitors as {
    visitor: string;
  }[];
  t.notOk(
    online.some((v) => v.visitor === 'teammate'),
    'and not in realtime',
  );

  await s.request('PATCH', '/v2/projects/site/visitors/teammate', {
    cookie: owner.cookie,
    body: { isInternal: false },
  });
  await send('team-3');
  t.same(
    await internal(),
    { 'team-1': false, 'team-2': false, 'team-3': false },
    'unmarked: every event human, the later one too',
  );

  // The mark outlives the actor: one that starts reads the internal visitors back.
  await s.request('PATCH', '/v2/projects/site/visitors/teammate', { cookie: owner.cookie, body: { isInternal: true } });
  await s.loupe.services.actors.get('site').reload();
  await send('team-4');
  t.equal((await internal())['team-4'], true, 'an actor that read its live state back marks them too');
});

t.test(
  'text PostgreSQL cannot store (NUL, unpaired surrogates) rejects that event alone, on both write paths',
  async (t) => {
    // 120 events: a flush of 100 or more is COPYed on PostgreSQL, where such text used to fail (and hang) the flush.
    const events = Array.from({ length: 120 }, (_, i) => ({
      id: `nul${i}`,
      name: 'pageview',
      visitor: `nulv${i % 4}`,
      page: { path: `/n/${i}` },
    }));
    events[5] = { ...events[5]!, page: { path: '/n/5', title: 'a\u0000b' } } as never;
    events[7] = { ...events[7]!, user: { id: 'u7', traits: { plan: 'pro\ud800' } } } as never;
    events[9] = { ...events[9]!, props: { ['k\u0000']: 1 } } as never;
    const started = Date.now();
    const res = await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events } });
    t.ok(Date.now() - started < 5_000, 'answered promptly');
    t.equal(res.status, 202);
    t.equal(res.body.accepted, 117);
    t.same(
      res.body.rejected.map((r: { index: number; field: string }) => [r.index, r.field]),
      [
        [5, 'page.title'],
        [7, 'user.traits.plan'],
        [9, 'props.k\uFFFD'],
      ],
    );
    t.match(res.body.rejected[0].message, /NUL characters or unpaired surrogates/);
    // The sessions and visitors of the accepted events are applied (a bad trait would have failed every checkpoint).
    const visitor = await s.request('GET', '/v2/projects/site/visitors/nulv3', { cookie: owner.cookie });
    t.equal(visitor.status, 200);
    t.equal(visitor.body.data.pageviews, 29, 'nulv3 sent 30 pageviews, one of them (#7) rejected');
    const lines = await sql`select data from logs where project_id = 'site' and data->>'field' = ${'props.k\uFFFD'}`;
    t.equal(lines.length, 1, 'the rejection reached the log stream');
  },
);

t.test("pageviews at a script's even pace: the uniform-dwell signal, from the session", async (t) => {
  const start = Date.now() - 10 * 60_000;
  const pageview = (i: number, visitor: string, gapsS: number[]) => ({
    id: `${visitor}-${i}`,
    name: 'pageview',
    visitor,
    ts: new Date(start + gapsS.slice(0, i).reduce((a, b) => a + b, 0) * 1000).toISOString(),
    page: { url: `https://shop.example.com/p${i}` },
    context: { ip: '81.2.69.142', userAgent: chrome },
  });
  const gaps = { metronome: [10, 10, 10, 10], reader: [4, 35, 12, 90] };
  for (const [visitor, g] of Object.entries(gaps)) {
    const res = await s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      body: { events: [0, 1, 2, 3, 4].map((i) => pageview(i, visitor, g)) },
    });
    t.equal(res.body.accepted, 5);
  }
  const rows = await sql<{ visitor_id: string; id: string; bot_score: number }[]>`
    select visitor_id, id, bot_score from events where project_id = 'site' and visitor_id in ('metronome', 'reader') order by id`;
  t.same(
    rows.filter((r) => r.visitor_id === 'metronome').map((r) => r.bot_score),
    [0, 0, 0, 30, 30],
    'from the third dwell of 10 s on',
  );
  t.same(
    rows.filter((r) => r.visitor_id === 'reader').map((r) => r.bot_score),
    [0, 0, 0, 0, 0],
  );
  const lines = (await s.request('GET', '/v2/projects/site/logs?kind=signals&visitor=metronome', owner)).body.data;
  t.match(lines.at(-1), {
    level: 'info',
    message: 'Visitor classified as suspect (score 30: uniformDwell)',
    data: { signals: { uniformDwell: true } },
  });
  const visitor = (await s.request('GET', '/v2/projects/site/visitors/metronome', owner)).body.data;
  t.match(visitor.bot, { score: 30, verdict: 'suspect', signals: { uniformDwell: true } });
  t.match((await s.request('GET', '/v2/projects/site/visitors/reader', owner)).body.data.bot.signals, {
    uniformDwell: false,
  });
});

// Visitor and session reads over generated multi-week history, checked against values computed here;
// the internal-traffic marking; detail access (viewers get aggregates only).
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'private');
const owner = await s.member('owner');
const analyst = await s.member('analyst', ['site']);
const viewer = await s.member('viewer', ['site']);
const chrome =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';

const DAY = 86_400_000;
const base = Date.now() - 40 * DAY;
// Visits on these days after the first (fractional: hours matter), each with a few pageviews minutes apart
// (as a person reads: 5, 7 and 3 minutes; even gaps would be a script's, see the uniform-dwell bot signal).
const visitDays = [0, 0.5, 3, 10, 24, 38];
const pagesPerVisit = [3, 1, 2, 4, 1, 2];
const paths = ['/', '/pricing', '/docs', '/blog'];
const events: Record<string, unknown>[] = [];
visitDays.forEach((d, v) => {
  for (let p = 0; p < pagesPerVisit[v]!; p++) {
    events.push({
      id: `v${v}p${p}`,
      name: 'pageview',
      visitor: 'alice',
      ts: new Date(base + d * DAY + [0, 5, 12, 15][p]! * 60_000).toISOString(),
      page: {
        url: `https://site.example.com${paths[(v + p) % paths.length]}`,
        referrer: p === 0 ? 'https://news.ycombinator.com/' : undefined,
      },
      user: { id: 'user-42', traits: { plan: 'pro' } },
      experiments: { checkout: 'b' },
      context: { ip: '81.2.69.142', userAgent: chrome },
      device: { screen: '1440x900', language: 'en-GB' },
    });
  }
  events.push({
    id: `v${v}signup`,
    name: 'signup',
    visitor: 'alice',
    ts: new Date(base + d * DAY + 60_000).toISOString(),
    context: { ip: '81.2.69.142', userAgent: chrome },
  });
});

t.test('the visitor read matches values computed from the history', async (t) => {
  const res = await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events } });
  t.equal(res.body.accepted, events.length);
  const read = await s.request('GET', '/v2/projects/site/visitors/alice', analyst);
  t.equal(read.status, 200);
  const v = read.body.data;
  const gaps = visitDays
    .slice(1)
    .map((d, i) => d - visitDays[i]!)
    .sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)]!; // five gaps: the middle one
  const daysActive = new Set(visitDays.map((d) => new Date(base + d * DAY).toISOString().slice(0, 10))).size;
  t.match(v, {
    id: 'alice',
    sessions: 6,
    visitCount: 6,
    pageviews: 13,
    events: 6,
    daysActive,
    returnedWithin: { day: true, week: true, month: true },
    isInternal: false,
    identity: { userId: 'user-42', traits: { plan: 'pro' } },
    experiments: { checkout: 'b' },
    geo: { country: 'GB' },
    device: {
      type: 'desktop',
      browser: 'Safari',
      os: 'macOS',
      screen: '1440x900',
      language: 'en-GB',
      connection: null,
    },
    bot: { verdict: 'human', signals: { headless: false } },
  });
  t.ok(Math.abs(v.medianDaysBetweenVisits - median) < 1e-6, `median gap ${v.medianDaysBetweenVisits} = ${median}`);
  t.equal(v.firstSeen, new Date(base).toISOString());
  t.equal(v.lastSeen, new Date(base + 38 * DAY + 5 * 60_000).toISOString(), 'the last pageview');
  t.match(
    v.geo,
    { country: 'GB', city: 'London', region: String, timezone: 'Europe/London', latitude: Number, longitude: Number },
    'geo from the forwarded address, every member',
  );
  t.ok('postalCode' in v.geo, 'postalCode present (null where the database has none)');
  const counts = new Map<string, number>();
  visitDays.forEach((_, vi) => {
    for (let p = 0; p < pagesPerVisit[vi]!; p++)
      counts.set(paths[(vi + p) % 4]!, (counts.get(paths[(vi + p) % 4]!) ?? 0) + 1);
  });
  const expectedTop = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([value, pageviews]) => ({ value, pageviews }));
  t.same(v.topPages, expectedTop);
  t.equal(v.recentSessions.length, 6);
  t.match(v.recentSessions[0], {
    startedAt: new Date(base + 38 * DAY).toISOString(),
    durationMs: 5 * 60_000,
    pageviews: 2,
    entryPage: paths[5 % 4],
    exitPage: paths[6 % 4],
  });
  t.equal(v.recentSessions.at(-1).referrer, 'https://news.ycombinator.com/');
});

t.test('a quiet visitor: no returns', async (t) => {
  await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { id: 'once', name: 'pageview', visitor: 'bob', page: { path: '/' }, context: { userAgent: chrome } },
  });
  const bob = (await s.request('GET', '/v2/projects/site/visitors/bob', analyst)).body.data;
  t.match(bob, { sessions: 1, medianDaysBetweenVisits: 0, returnedWithin: { day: false, week: false, month: false } });
  t.equal((await s.request('GET', '/v2/projects/site/visitors/nobody', analyst)).status, 404);
});

t.test('session events: header and events in order, paged', async (t) => {
  const sessionId = (await s.request('GET', '/v2/projects/site/visitors/alice', analyst)).body.data.recentSessions.at(
    -1,
  ).id;
  const first = await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events?limit=2`, analyst);
  t.match(first.body.session, {
    id: sessionId,
    visitor: 'alice',
    startedAt: new Date(base).toISOString(),
    durationMs: 12 * 60_000,
    bot: { score: Number, reasons: Array },
  });
  t.same(
    first.body.data.map((e: { name: string }) => e.name),
    ['pageview', 'signup'],
  );
  t.match(first.body.data[0], {
    page: { path: '/', route: null, title: null, referrer: 'https://news.ycombinator.com/' },
    props: {},
  });
  const rest = await s.request(
    'GET',
    `/v2/projects/site/sessions/${sessionId}/events?limit=2&cursor=${first.body.nextCursor}`,
    analyst,
  );
  t.same(
    rest.body.data.map((e: { id: string }) => e.id),
    ['v0p1', 'v0p2'],
  );
  t.equal(rest.body.nextCursor, null, 'the last page, exactly full, ends the paging');
  t.equal((await s.request('GET', '/v2/projects/site/sessions/nope/events', analyst)).status, 404);
});

t.test(
  "a session's bot reasons are its own: a clean session of a visitor once driven by webdriver has none",
  async (t) => {
    const own = await s.project('driven', 'private'); // a project of its own: the other tests count this one's visitors
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
    const res = await s.request('POST', '/v2/ingest', {
      token: own.secretKey,
      body: {
        events: [
          {
            id: 'wd-1',
            name: 'pageview',
            visitor: 'driven',
            ts: at(3),
            page: { path: '/' },
            signals: { webdriver: true },
            context: { userAgent: chrome },
          },
          {
            id: 'wd-2',
            name: 'pageview',
            visitor: 'driven',
            ts: at(1),
            page: { path: '/' },
            context: { userAgent: chrome },
          },
        ],
      },
    });
    t.equal(res.body.accepted, 2);
    const sessions = (await s.request('GET', '/v2/projects/driven/visitors/driven', owner)).body.data
      .recentSessions as { id: string; startedAt: string }[];
    t.equal(sessions.length, 2, 'two sessions, two hours apart');
    const header = async (id: string) =>
      (await s.request('GET', `/v2/projects/driven/sessions/${id}/events`, owner)).body.session.bot;
    const byStart = [...sessions].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    t.same(await header(byStart[0]!.id), { score: 70, reasons: ['webdriver'] }, 'the driven session');
    t.same(await header(byStart[1]!.id), { score: 0, reasons: [] }, 'the clean one');

    // From a data centre (3.5.140.2 is AWS): a webdriver session scores 100, a later one 30, and only the
    // signals light enough for 30 can be that session's.
    const aws = { ip: '3.5.140.2', userAgent: chrome };
    t.equal(
      (
        await s.request('POST', '/v2/ingest', {
          token: own.secretKey,
          body: {
            events: [
              {
                id: 'dc-1',
                name: 'pageview',
                visitor: 'hosted',
                ts: at(3),
                page: { path: '/' },
                signals: { webdriver: true },
                context: aws,
              },
              { id: 'dc-2', name: 'pageview', visitor: 'hosted', ts: at(1), page: { path: '/' }, context: aws },
            ],
          },
        })
      ).body.accepted,
      2,
    );
    const hosted = (
      (await s.request('GET', '/v2/projects/driven/visitors/hosted', owner)).body.data.recentSessions as {
        id: string;
        startedAt: string;
      }[]
    ).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    t.same(await header(hosted[0]!.id), { score: 100, reasons: ['webdriver', 'datacenterAsn'] });
    t.same(
      await header(hosted[1]!.id),
      { score: 30, reasons: ['datacenterAsn'] },
      "webdriver (70) weighs more than the session's 30",
    );
  },
);

t.test('marking a visitor internal; access', async (t) => {
  t.equal((await s.request('GET', '/v2/projects/site/visitors/alice', viewer)).status, 403, 'viewers: aggregates only');
  t.equal(
    (await s.request('GET', '/v2/projects/site/visitors/alice')).status,
    404,
    'anonymous: a private project is hidden',
  );
  t.equal(
    (await s.request('PATCH', '/v2/projects/site/visitors/alice', { ...analyst, body: { isInternal: true } })).status,
    403,
    'analysts cannot mark',
  );
  const admin = await s.member('admin', ['site']);
  const byAdmin = await s.request('PATCH', '/v2/projects/site/visitors/alice', {
    ...admin,
    body: { isInternal: false },
  });
  t.equal(byAdmin.status, 200, "the project's admin may mark");
  t.match(byAdmin.body.data, { id: 'alice', isInternal: false });
  const marked = await s.request('PATCH', '/v2/projects/site/visitors/alice', { ...owner, body: { isInternal: true } });
  t.same(marked.body.data, { id: 'alice', isInternal: true, eventsUpdated: events.length, sessionsUpdated: 6 });
  const [{ n }] = await s.loupe.services
    .sql`select count(*)::int as n from events where project_id = 'site' and visitor_id = 'alice' and not is_internal`;
  t.equal(n, 0, 'every event is internal now');
  t.equal((await s.request('GET', '/v2/projects/site/visitors/alice', analyst)).body.data.isInternal, true);
  t.equal((await s.request('PATCH', '/v2/projects/site/visitors/alice', { ...owner, body: {} })).status, 400);
});

t.test('the visitor and session lists: range, filters, traffic, pages', async (t) => {
  const range = `from=${new Date(base - DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}`;
  const all = await s.request('GET', `/v2/projects/site/visitors?${range}&traffic=all`, analyst);
  t.equal(all.status, 200);
  t.same(all.body.data.map((r: { id: string }) => r.id).sort(), ['alice', 'bob']);
  const alice = all.body.data.find((r: { id: string }) => r.id === 'alice');
  t.match(alice, {
    pageviews: 13,
    sessions: 6,
    events: 6,
    userId: 'user-42',
    country: 'GB',
    isInternal: true,
    device: { browser: 'Safari' },
  });
  t.same(all.body.filters, {});
  t.equal(all.body.traffic, 'all');
  const human = await s.request('GET', `/v2/projects/site/visitors?${range}`, analyst);
  t.same(
    human.body.data.map((r: { id: string }) => r.id),
    ['bob'],
    'alice is internal now: not human traffic',
  );
  const internal = await s.request(
    'GET',
    `/v2/projects/site/visitors?${range}&traffic=internal&filter[page]=/docs`,
    analyst,
  );
  t.same(
    internal.body.data.map((r: { id: string }) => r.id),
    ['alice'],
  );
  t.same(internal.body.filters, { page: '/docs' });

  const sessions: { id: string; visitor: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: { id: string; visitor: string }[]; nextCursor: string | null } } = await s.request(
      'GET',
      `/v2/projects/site/sessions?${range}&traffic=all&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      analyst,
    );
    sessions.push(...page.body.data);
    cursor = page.body.nextCursor;
  } while (cursor);
  t.equal(sessions.length, 7, "alice's six sessions and bob's one, over two pages");
  t.equal(new Set(sessions.map((x) => x.id)).size, 7, 'no session twice across pages');
  t.equal((await s.request('GET', `/v2/projects/site/sessions?${range}`, viewer)).status, 403, 'detail access');
  t.equal(
    (await s.request('GET', '/v2/projects/site/visitors?period=fortnight', analyst)).body.error.details[0].field,
    'query.period',
  );
});

t.test('the visitor and session lists as downloads: every row of the pages, in order', async (t) => {
  const range = `from=${new Date(base - DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}&traffic=all`;
  for (const list of ['visitors', 'sessions']) {
    const paged: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Record<string, unknown>[]; nextCursor: string | null } } = await s.request(
        'GET',
        `/v2/projects/site/${list}?${range}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        analyst,
      );
      paged.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    const json = await s.request('GET', `/v2/projects/site/${list}?${range}&format=json`, analyst);
    t.same(json.body.data, paged, `${list}: json holds the paged rows`);
    t.match(json.body, { traffic: 'all', filters: {}, nextCursor: null });
    const csv = await s.request('GET', `/v2/projects/site/${list}?${range}`, {
      ...analyst,
      headers: { accept: 'text/csv' },
    });
    const lines = csv.text.trim().split('\r\n');
    t.equal(lines.length, paged.length + 1, `${list}: csv has a header and every row`);
    t.ok(lines[0]!.includes('device.browser'), `${list}: nested members as dotted columns`);
    t.same(
      lines.slice(1).map((l) => l.split(',')[0]),
      paged.map((r) => r.id),
      `${list}: csv rows in order`,
    );
    const sql = await s.request('GET', `/v2/projects/site/${list}?${range}&format=sql`, analyst);
    t.match(sql.text, /^CREATE TABLE "[a-z]+_site"/);
    t.equal((sql.text.match(/^INSERT INTO/gm) ?? []).length >= 1, true, `${list}: sql inserts`);
    t.equal(
      (await s.request('GET', `/v2/projects/site/${list}?${range}&limit=500`, analyst)).status,
      400,
      `${list}: over 100 needs format`,
    );
    for (const format of ['json', 'csv', 'sql']) {
      const bad = await s.request('GET', `/v2/projects/site/${list}?${range}&format=${format}&cursor=v276`, analyst);
      t.equal(bad.status, 400, `${list} as ${format} from a cursor the API never gave: a 400, not a cut download`);
      t.match(bad.body.error.details, [{ field: 'query.cursor' }]);
    }
  }
});

t.test('session events as a download', async (t) => {
  const sessionId = (await s.request('GET', '/v2/projects/site/visitors/alice', analyst)).body.data.recentSessions.at(
    -1,
  ).id;
  const csv = await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events`, {
    ...analyst,
    headers: { accept: 'text/csv' },
  });
  t.match(csv.headers.get('content-type'), /text\/csv/);
  const lines = csv.text.trim().split(/\r?\n/);
  t.equal(lines[0], 'id,name,ts,page.path,page.route,page.title,page.referrer,props');
  t.equal(lines.length, 5, 'a header and all four events');
  t.match(lines[1], /^v0p0,pageview,/);
  const json = await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events?format=json&limit=2`, analyst);
  t.equal(json.body.data.length, 4, 'every event, fetched two at a time');
  t.equal(json.body.session.id, sessionId);
  t.equal(json.body.nextCursor, null, "the normal answer's members, nextCursor too");
  const sql = await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events?format=sql`, analyst);
  t.match(sql.text, /CREATE TABLE/i);
  t.match(sql.text, /INSERT INTO/i);
  t.equal(
    (await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events?limit=500`, analyst)).status,
    400,
    'over 100 without format',
  );
  const bad = await s.request('GET', `/v2/projects/site/sessions/${sessionId}/events?format=csv&cursor=v276`, analyst);
  t.equal(bad.status, 400, 'a cursor the API never gave: a 400');
  t.match(bad.body.error.details, [{ field: 'query.cursor' }]);
});

t.test('marking takes the events stored without a session, and the visitor leaves realtime', async (t) => {
  const send = (events: Record<string, unknown>[]) =>
    s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events } });
  // An engagement report with no live session starts none: it is stored with an empty session.
  const now = Date.now();
  await send([
    {
      id: 'carol-eng',
      name: 'engagement',
      visitor: 'carol',
      ts: new Date(now - 60_000).toISOString(),
      props: { timeMs: 4000 },
      context: { ip: '81.2.69.142', userAgent: chrome },
    },
  ]);
  await send([
    {
      id: 'carol-pv',
      name: 'pageview',
      visitor: 'carol',
      page: { path: '/live' },
      context: { ip: '81.2.69.142', userAgent: chrome },
    },
  ]);
  const [stored] = await s.loupe.services.sql<
    { session_id: string }[]
  >`select session_id from events where project_id = 'site' and id = 'carol-eng'`;
  t.equal(stored?.session_id, '', 'the engagement report has no session');
  const realtime = async () => (await s.request('GET', '/v2/projects/site/realtime?include=visitors', owner)).body;
  t.ok(
    (await realtime()).visitors.some((v: { visitor: string }) => v.visitor === 'carol'),
    'carol is live',
  );
  const before = (await realtime()).data;

  const marked = await s.request('PATCH', '/v2/projects/site/visitors/carol', { ...owner, body: { isInternal: true } });
  t.same(marked.body.data, { id: 'carol', isInternal: true, eventsUpdated: 2, sessionsUpdated: 1 });
  const [{ n }] = await s.loupe.services
    .sql`select count(*)::int as n from events where project_id = 'site' and visitor_id = 'carol' and not is_internal`;
  t.equal(n, 0, 'the session-less event too');
  const after = await realtime();
  t.notOk(
    after.visitors.some((v: { visitor: string }) => v.visitor === 'carol'),
    'an internal visitor is not human traffic: gone from realtime',
  );
  t.equal(after.data.visitors, before.visitors - 1);
  t.equal(
    Math.round(after.data.pageviewsPerMinute * 5),
    Math.round(before.pageviewsPerMinute * 5) - 1,
    'and their pageview from the per-minute counts',
  );
  const range = `from=${new Date(now - DAY).toISOString()}&to=${new Date(now + DAY).toISOString()}`;
  const listed = (await s.request('GET', `/v2/projects/site/visitors?${range}&traffic=all`, owner)).body.data.find(
    (r: { id: string }) => r.id === 'carol',
  );
  t.match(listed, { sessions: 1, pageviews: 1 }, 'the session-less report is no session of its own in the list');
});

t.test('returnedWithin: a day, a week and a month after the first visit, each on its own', async (t) => {
  const visits = { dora: [0, 3], erin: [0, 20], finn: [0, 0.5] } as const;
  const at = Date.now() - 25 * DAY;
  const sent = Object.entries(visits).flatMap(([visitor, days]) =>
    days.map((d, i) => ({
      id: `${visitor}-${i}`,
      name: 'pageview',
      visitor,
      ts: new Date(at + d * DAY).toISOString(),
      page: { path: '/' },
      context: { userAgent: chrome },
    })),
  );
  t.equal((await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events: sent } })).body.accepted, 6);
  const returned = async (id: string) =>
    (await s.request('GET', `/v2/projects/site/visitors/${id}`, analyst)).body.data.returnedWithin;
  t.same(await returned('dora'), { day: false, week: true, month: true }, 'back after 3 days');
  t.same(await returned('erin'), { day: false, week: false, month: true }, 'back after 20 days');
  t.same(await returned('finn'), { day: true, week: true, month: true }, 'back after 12 hours');
});

// An export of a real route against its paged answers: a session of 100,000 ingested events, read 100 at
// a time through the cursor, then downloaded as json, csv and sql. Every download holds exactly the paged
// rows in the same order, and the sql loads into real PostgreSQL and real SQLite with the same rows back.
import t, { type Test } from 'tap';
import { loadIntoPostgres, loadIntoSqlite, parseCsv } from '../support/export-check.ts';
import { startTestServer } from '../support/server.ts';

t.setTimeout(600_000);
const N = 100_000;
const BATCH = 500;
const s = await startTestServer({ ingestRate: { capacity: 1_000_000, refillPerSecond: 1_000_000 } });
t.teardown(() => s.close());
const site = await s.project('site');
const analyst = { token: await s.token('read') };

// Values that stress every writer: commas, quotes, newlines, backslashes, semicolons, non-ASCII.
const PATHS = ['/', '/pricing', '/a,b', '/say-"hi"', "/o'clock", '/ünïcødé', '/semi;colon', '/back\\slash'];
const TITLES = [null, 'Plain', 'Comma, inside', 'Quote " inside', 'Line\nbreak', 'CRLF\r\nbreak'];
const base = Date.now() - 2 * 3_600_000;
const event = (i: number) => {
  const custom = i % 10 === 9;
  return {
    id: `ev-${String(i).padStart(6, '0')}`,
    visitor: 'big',
    ts: new Date(base + i * 10).toISOString(), // one session: 10 ms apart
    name: custom ? 'signup' : 'pageview',
    page: { path: PATHS[i % PATHS.length], ...(TITLES[i % TITLES.length] ? { title: TITLES[i % TITLES.length] } : {}) },
    ...(custom ? { props: { plan: i % 20 === 9 ? 'pro, "team"' : 'free', seats: i % 7 } } : {}),
  };
};

for (let i = 0; i < N; i += BATCH) {
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { events: Array.from({ length: BATCH }, (_, k) => event(i + k)) },
  });
  if (res.status !== 202 || res.body.accepted !== BATCH)
    throw new Error(`ingest ${i}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
}
const visitor = (await s.request('GET', '/v2/projects/site/visitors/big', analyst)).body.data;
const sessionId: string = visitor.recentSessions[0].id;
const route = `/v2/projects/site/sessions/${sessionId}/events`;

type EventView = {
  id: string;
  name: string;
  ts: string;
  page: { path: string | null; route: string | null; title: string | null; referrer: string | null };
  props: Record<string, unknown>;
};
const paged: EventView[] = [];
for (let cursor: string | null = null, pages = 0; ; pages++) {
  const res = await s.request(
    'GET',
    `${route}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    analyst,
  );
  if (res.status !== 200) throw new Error(`page ${pages}: ${res.status} ${res.text.slice(0, 200)}`);
  paged.push(...(res.body.data as EventView[]));
  cursor = res.body.nextCursor;
  if (!cursor) break;
}
/** A row as flat values in the export's column order: id,name,ts,page.path,page.route,page.title,page.referrer,props. */
const flat = (e: EventView) => [
  e.id,
  e.name,
  e.ts,
  e.page.path,
  e.page.route,
  e.page.title,
  e.page.referrer,
  JSON.stringify(e.props),
];
const expected = paged.map(flat);

t.test('the paged answers hold every event once, in order', async (t) => {
  t.equal(paged.length, N, `${N} events over ${N / 100} pages`);
  t.equal(new Set(paged.map((e) => e.id)).size, N, 'no event twice');
  t.equal(paged[0]!.id, 'ev-000000');
  t.equal(paged.at(-1)!.id, `ev-0${N - 1}`);
  t.same(paged[19]!.props, { plan: 'free', seats: 19 % 7 });
});

t.test('json: the same rows in data', async (t) => {
  const res = await s.request('GET', `${route}?format=json`, analyst);
  t.equal(res.status, 200);
  t.equal(res.body.session.id, sessionId);
  same(t, (res.body.data as EventView[]).map(flat), 'json');
});

t.test('csv: a header and the same rows (props as JSON text)', async (t) => {
  const res = await s.request('GET', route, { ...analyst, headers: { accept: 'text/csv' } });
  t.match(res.headers.get('content-type'), /^text\/csv/);
  const [header, ...records] = parseCsv(res.text);
  t.same(header, ['id', 'name', 'ts', 'page.path', 'page.route', 'page.title', 'page.referrer', 'props']);
  same(
    t,
    records.map((f) => f.map((v, i) => (v === '' && i >= 3 && i <= 6 ? null : v))),
    'csv',
  );
});

t.test('sql: loads into PostgreSQL and SQLite with the same rows', async (t) => {
  const res = await s.request('GET', `${route}?format=sql`, analyst);
  t.equal(res.status, 200);
  const table = /^CREATE TABLE "([^"]+)"/.exec(res.text)?.[1];
  t.ok(table, 'a CREATE TABLE statement first');
  const select = `select * from "${table}" order by ts, id`;
  const columns = ['id', 'name', 'ts', 'page.path', 'page.route', 'page.title', 'page.referrer', 'props'];
  const pg = await loadIntoPostgres(res.text, select);
  same(
    t,
    pg.rows.map((r) => columns.map((c) => r[c])),
    pg.engine,
  );
  const lite = await loadIntoSqlite(res.text, select);
  t.equal(lite.status, 0, lite.stderr);
  same(
    t,
    lite.rows.map((r) => columns.map((c) => r[c])),
    'SQLite',
  );
});

/** Compares row by row and reports the first difference (a deep diff of 100,000 rows would take minutes). */
function same(t: Test, got: unknown[][], what: string): void {
  t.equal(got.length, expected.length, `${what}: every row`);
  const first = got.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(expected[i]));
  t.same(
    first === -1 ? null : { index: first, got: got[first], expected: expected[first] },
    null,
    `${what}: the paged rows, in order`,
  );
}

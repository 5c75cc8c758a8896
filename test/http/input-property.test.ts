// Properties of hostile input, over generated values (fast-check, a bounded number of runs each): a date
// PostgreSQL cannot hold, text with U+0000, a cursor this API never gave out and a mangled session cookie
// each answer a 400 naming the field (or are ignored, for the cookie), never a 500.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';

const RUNS = 20;
const s = await startTestServer({ ingestRate: { capacity: 10_000, refillPerSecond: 10_000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const owner = await s.member('owner');

/** Either a success or a 400 whose first detail names `field`. */
function expectFieldOr2xx(t: Test, res: { status: number; body: any }, field: string, what: string) {
  if (res.status < 300) return t.pass(`${what}: ${res.status}`);
  t.equal(res.status, 400, `${what}: 400, not ${res.status}`);
  t.equal(res.body?.error?.details?.[0]?.field, field, `${what}: names ${field}`);
}

const pad = (n: number, width: number) => String(Math.abs(n)).padStart(width, '0');
/** Date-times in the accepted format (and near it) with years, days and offsets far outside any calendar. */
const wildDate = fc.oneof(
  fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      offset: fc.constantFrom('Z', '+00:00', '-23:59', '+99:99', '+14:00', '-12:00'),
    })
    .map((d) => `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:00:00${d.offset}`),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '9999-12-31T23:59:59-23:59'),
);
const withNul = fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => `${a}\u0000${b}`);

t.test('dates outside what PostgreSQL holds are 400s naming the field', async (t) => {
  await fc.assert(
    fc.asyncProperty(wildDate, async (date) => {
      const q = encodeURIComponent(date);
      expectFieldOr2xx(
        t,
        await s.request('GET', `/v2/projects/site/stats?from=${q}&to=2026-01-01T00:00:00Z`),
        'query.from',
        `from ${date}`,
      );
      expectFieldOr2xx(
        t,
        await s.request('GET', `/v2/projects/site/annotations?from=2000-01-01T00:00:00Z&to=${q}`),
        'query.to',
        `annotations to ${date}`,
      );
      expectFieldOr2xx(
        t,
        await s.request('POST', '/v2/projects/site/annotations', {
          ...owner,
          body: { title: 'deploy', date, kind: 'release' },
        }),
        'body.date',
        `annotation date ${date}`,
      );
      const expiry = await s.request('POST', '/v2/tokens', {
        ...owner,
        body: { name: 'n', scope: 'read', expiresAt: date },
      });
      expectFieldOr2xx(t, expiry, 'body.expiresAt', `expiresAt ${date}`);
    }),
    { numRuns: RUNS },
  );
});

t.test('U+0000 in any text that reaches SQL is a 400 naming the field', async (t) => {
  await fc.assert(
    fc.asyncProperty(withNul, async (text) => {
      const q = encodeURIComponent(text);
      const cases: [string, string, string, object?][] = [
        ['GET', `/v2/projects/site/stats?filter[page]=${q}`, 'query.filter[page]'],
        ['GET', `/v2/projects/site/breakdown/page?filter[prop:plan]=${q}`, 'query.filter[prop:plan]'],
        ['GET', `/v2/projects/site/logs?q=${q}`, 'query.q'],
        ['GET', `/v2/projects/site/visitors/${q}`, 'path.visitor'],
        ['GET', `/v2/projects/site/sessions/${q}/events`, 'path.session'],
        ['POST', '/v2/projects/site/annotations', 'body.title', { title: text, date: '2026-01-01T00:00:00Z' }],
        ['PATCH', '/v2/projects/site', 'body.name', { name: text }],
      ];
      for (const [method, path, field, body] of cases) {
        const res = await s.request(method, path, { ...owner, body });
        t.equal(res.status, 400, `${method} ${path}`);
        t.equal(res.body?.error?.details?.[0]?.field, field);
      }
    }),
    { numRuns: RUNS },
  );
});

t.test('cursors this API never gave out are 400s naming query.cursor', async (t) => {
  const json = fc.oneof(
    fc.jsonValue(),
    fc.record({ o: fc.oneof(fc.double(), fc.integer(), fc.constant(1e300), fc.string()) }),
    fc.tuple(fc.oneof(wildDate, fc.string()), fc.oneof(fc.string(), withNul)),
    fc.record({ date: wildDate, id: fc.string() }),
  );
  const cursor = fc.oneof(
    json.map((j) => Buffer.from(JSON.stringify(j) ?? 'null').toString('base64url')),
    fc.string({ minLength: 1, maxLength: 40 }),
  );
  await fc.assert(
    fc.asyncProperty(cursor, async (c) => {
      const q = encodeURIComponent(c);
      for (const path of [
        `/v2/projects/site/breakdown/page?cursor=${q}`,
        `/v2/projects/site/issues?cursor=${q}`,
        `/v2/projects/site/annotations?cursor=${q}`,
        `/v2/projects/site/visitors?cursor=${q}`,
      ])
        expectFieldOr2xx(t, await s.request('GET', path, owner), 'query.cursor', `${path}`);
    }),
    { numRuns: RUNS },
  );
});

t.test('a mangled session cookie is no credential: health, public reads and ingest still answer', async (t) => {
  const junk = fc.oneof(
    fc.constantFrom('%', '%E0%A4%A', '%00', '%zz', '"', ''),
    fc.string({ maxLength: 30 }).filter((x) => !/[;\r\n]/.test(x) && [...x].every((c) => c >= ' ' && c <= '~')),
  );
  let n = 0;
  await fc.assert(
    fc.asyncProperty(junk, async (value) => {
      const cookie = `loupe.session_token=${value}`;
      t.equal((await s.request('GET', '/v2/health', { cookie })).status, 200, `health with ${cookie}`);
      t.equal((await s.request('GET', '/v2/projects/site/stats', { cookie })).status, 200, 'a public read');
      const ingest = await s.request('POST', '/v2/ingest', {
        cookie,
        headers: { 'x-project-key': site.publicKey },
        body: { id: `cookie-${n++}`, name: 'pageview', page: { path: '/' } },
      });
      t.same([ingest.status, ingest.body?.accepted], [202, 1], 'ingest keeps the event');
      t.equal((await s.request('GET', '/v2/projects/site/logs', { cookie })).status, 401, 'detail needs a credential');
    }),
    { numRuns: RUNS },
  );
});

// Retention cohorts against the reference: visitors returning in later weeks and months, ranges that
// start mid-week, traffic and filters, and the parameters' errors.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, refRetention, send, type RefScope, type Sent } from '../query/reference.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 40 * DAY;
// Generated traffic plus visitors who come back two and four weeks after their first visit.
const returners: Sent[] = [0, 1, 2].flatMap((v) =>
  [0, 14, 28].map((d, i) => ({
    id: `rre${900 + v * 3 + i}`,
    ts: start + (d + v) * DAY + 3_600_000,
    name: 'pageview',
    visitor: `rrv${900 + v}`,
    session: `rrv${900 + v}s${i}`,
    path: '/',
    host: 'shop.example.com',
    country: null,
    plan: 'pro',
    bot: false,
    internal: false,
    localhost: false,
    environment: 'production' as const,
  })),
);
const events = [...generate('r', start, 40, 150, 5), ...returners];
await send(s, site.secretKey, events, owner.cookie);

const iso = (ms: number) => new Date(ms).toISOString();
const query = (q: RefScope, extra: Record<string, string> = {}) => {
  const p = new URLSearchParams({
    from: iso(q.from),
    to: iso(q.to),
    traffic: q.traffic,
    environment: q.environment,
    ...extra,
  });
  for (const [k, v] of Object.entries(q.filters ?? {})) p.set(`filter[${k}]`, v);
  return p.toString();
};
type Cohort = { cohort: string; visitors: number; periods: { offset: number; visitors: number; share: number }[] };

const scopes: [string, RefScope, 'week' | 'month'][] = [
  ['whole range by week', { from: start, to: today, traffic: 'human', environment: 'production' }, 'week'],
  [
    'mid-week start',
    { from: start + 3 * DAY + 7 * 3_600_000, to: today - 2 * DAY, traffic: 'all', environment: 'all' },
    'week',
  ],
  ['by month', { from: start, to: today, traffic: 'human', environment: 'all' }, 'month'],
  [
    'filtered',
    {
      from: start,
      to: today,
      traffic: 'human',
      environment: 'production',
      filters: { page: '!/docs', 'trait:tier': 'gold' },
    },
    'week',
  ],
  ['bots', { from: start, to: today, traffic: 'bots', environment: 'all' }, 'week'],
];

t.test('cohorts match the reference', async (t) => {
  for (const [label, q, interval] of scopes) {
    const res = await s.request(
      'GET',
      `/v2/projects/site/retention?${query(q, interval === 'month' ? { interval } : {})}`,
      owner,
    );
    t.equal(res.status, 200, label);
    t.equal(res.body.interval, interval);
    const want = refRetention(events, q, interval);
    const got = res.body.data as Cohort[];
    t.same(
      got.map((c) => [c.cohort, c.visitors, c.periods.map((p) => [p.offset, p.visitors])]),
      want.map((c) => [c.cohort, c.visitors, c.periods.map((p) => [p.offset, p.visitors])]),
      `${label}: counts`,
    );
    got.forEach((c, i) =>
      c.periods.forEach((p, j) => t.ok(Math.abs(p.share - want[i]!.periods[j]!.share) <= 1e-9, `${label} share`)),
    );
    t.ok(
      got.every((c) => c.periods[0]!.share === 1),
      `${label}: offset 0 has share 1`,
    );
    t.same(res.body.range, { from: iso(q.from), to: iso(q.to) });
    t.same(res.body.filters, q.filters ?? {});
  }
  const weekly = refRetention(events, scopes[0]![1], 'week');
  t.ok(weekly.length >= 5, 'several weekly cohorts');
  t.ok(
    weekly.some((c) => c.periods.slice(2).some((p) => p.visitors > 0)),
    'visitors return two or more weeks later',
  );
  for (const c of weekly) t.equal(new Date(c.cohort).getUTCDay(), 1, 'weeks start on Monday');
});

t.test('bad parameters', async (t) => {
  const fields = async (qs: string) =>
    (await s.request('GET', `/v2/projects/site/retention?${qs}`, owner)).body.error.details.map(
      (d: { field: string }) => d.field,
    );
  t.same(await fields('interval=day'), ['query.interval']);
  t.same(await fields('filter[colour]=red'), ['query.filter[colour]']);
  t.equal((await s.request('GET', '/v2/projects/site/retention')).status, 404, 'private project hidden');
});

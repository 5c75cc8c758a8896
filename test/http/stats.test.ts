// Reference test of the statistic block: ~2,000 generated events (bots, internal, localhost, preview,
// countries, props) sent with past timestamps; every metric recomputed in TypeScript and compared.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, refStats, send, type RefScope } from '../query/reference.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } });
t.teardown(() => s.close());
const site = await s.project('site');
const other = await s.project('other', 'public');
const owner = await s.member('owner');
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 12 * DAY;
const events = generate('a', start, 12);
const otherEvents = generate('b', start, 12, 40, 11);
await send(s, site.secretKey, events, owner.cookie);
await send(s, other.secretKey, otherEvents, owner.cookie);
const sql = s.loupe.services.sql;

const iso = (ms: number) => new Date(ms).toISOString();
const query = (q: RefScope) => {
  const p = new URLSearchParams({ from: iso(q.from), to: iso(q.to), traffic: q.traffic, environment: q.environment });
  for (const [k, v] of Object.entries(q.filters ?? {})) p.set(`filter[${k}]`, v);
  return p.toString();
};
const metrics = ['visitors', 'sessions', 'pageviews', 'pagesPerSession', 'bounceRate', 'sessionDurationMs'] as const;

function same(
  t: Test,
  got: Record<string, { value: number; previous: number; change: number | null }>,
  want: ReturnType<typeof refStats>,
  prev: ReturnType<typeof refStats>,
  label: string,
) {
  for (const m of metrics) {
    const exact = m === 'visitors' || m === 'sessions' || m === 'pageviews';
    for (const [g, w, which] of [
      [got[m]!.value, want[m], 'value'],
      [got[m]!.previous, prev[m], 'previous'],
    ] as const) {
      if (exact) t.equal(g, w, `${label} ${m} ${which}`);
      else t.ok(Math.abs(g - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${label} ${m} ${which}: ${g} ≈ ${w}`);
    }
    const change = prev[m] === 0 ? null : (want[m] - prev[m]) / prev[m];
    if (change === null) t.equal(got[m]!.change, null, `${label} ${m} change null`);
    else t.ok(Math.abs(got[m]!.change! - change) <= 1e-9, `${label} ${m} change`);
  }
}

t.test('the data arrived as sent', async (t) => {
  const rows = await sql<
    { n: number; sessions: number; bots: number; internal: number; local: number; preview: number; gb: number }[]
  >`
    select count(*)::int as n, count(distinct session_id)::int as sessions, count(*) filter (where bot_score >= 50)::int as bots,
      count(*) filter (where is_internal)::int as internal, count(*) filter (where is_localhost)::int as local,
      count(*) filter (where environment = 'preview')::int as preview, count(*) filter (where country = 'GB')::int as gb
    from events where project_id = 'site'`;
  t.same(rows[0], {
    n: events.length,
    sessions: new Set(events.map((e) => e.session)).size,
    bots: events.filter((e) => e.bot).length,
    internal: events.filter((e) => e.internal).length,
    local: events.filter((e) => e.localhost).length,
    preview: events.filter((e) => e.environment === 'preview').length,
    gb: events.filter((e) => e.country === 'GB').length,
  });
  t.ok(events.length > 1500, `${events.length} events`);
});

const scopes: [string, RefScope][] = [
  ['whole range', { from: start, to: today, traffic: 'human', environment: 'production' }],
  [
    'partial days',
    {
      from: start + 5 * DAY + 5 * 3_600_000,
      to: start + 9 * DAY + 13 * 3_600_000,
      traffic: 'human',
      environment: 'production',
    },
  ],
  ['bots', { from: start + 6 * DAY, to: today, traffic: 'bots', environment: 'production' }],
  ['internal, all environments', { from: start + 6 * DAY, to: today, traffic: 'internal', environment: 'all' }],
  ['all traffic, preview', { from: start + 6 * DAY, to: today, traffic: 'all', environment: 'preview' }],
  ['all, all', { from: start + 6 * DAY, to: today, traffic: 'all', environment: 'all' }],
  [
    'page include',
    { from: start + 6 * DAY, to: today, traffic: 'human', environment: 'production', filters: { page: '/pricing' } },
  ],
  [
    'page exclude',
    { from: start + 6 * DAY, to: today, traffic: 'human', environment: 'production', filters: { page: '!/pricing' } },
  ],
  [
    'event include',
    { from: start + 6 * DAY, to: today, traffic: 'all', environment: 'all', filters: { event: 'signup' } },
  ],
  [
    'country include',
    { from: start + 6 * DAY, to: today, traffic: 'human', environment: 'production', filters: { country: 'GB' } },
  ],
  [
    'country exclude + prop',
    {
      from: start + 6 * DAY,
      to: today,
      traffic: 'human',
      environment: 'all',
      filters: { country: '!GB', 'prop:plan': 'pro' },
    },
  ],
  [
    'prop exclude',
    {
      from: start + 3 * DAY,
      to: start + 9 * DAY,
      traffic: 'human',
      environment: 'production',
      filters: { 'prop:plan': '!free' },
    },
  ],
];

t.test('per project, against the reference', async (t) => {
  for (const [label, q] of scopes) {
    const res = await s.request('GET', `/v2/projects/site/stats?${query(q)}`, owner);
    t.equal(res.status, 200, label);
    const prev = { ...q, from: 2 * q.from - q.to, to: q.from };
    same(t, res.body.data, refStats(events, q), refStats(events, prev), label);
    t.same(res.body.range, { from: iso(q.from), to: iso(q.to) });
    t.same(res.body.previousRange, { from: iso(prev.from), to: iso(prev.to) });
    t.same(res.body.filters, q.filters ?? {});
    t.match(res.body, { traffic: q.traffic, environment: q.environment });
  }
});

t.test('periods', async (t) => {
  for (const [period, days] of [
    ['7d', 7],
    ['30d', 30],
  ] as const) {
    const q: RefScope = { from: today - days * DAY, to: today, traffic: 'human', environment: 'production' };
    const res = await s.request('GET', `/v2/projects/site/stats?period=${period}`, owner);
    same(
      t,
      res.body.data,
      refStats(events, q),
      refStats(events, { ...q, from: q.from - days * DAY, to: q.from }),
      period,
    );
  }
  const res = await s.request('GET', '/v2/projects/site/stats', owner);
  t.same(res.body.range, { from: iso(today - 30 * DAY), to: iso(today) }, 'default 30d');
  const all = await s.request('GET', '/v2/projects/site/stats?period=all', owner);
  const first = Math.min(...events.map((e) => e.ts));
  t.same(
    all.body.range,
    { from: iso(Math.floor(first / DAY) * DAY), to: iso(today) },
    'all: from the day of the first event',
  );
});

t.test('across projects: sums over readable projects', async (t) => {
  const q: RefScope = {
    from: start,
    to: today,
    traffic: 'human',
    environment: 'production',
    filters: { page: '!/docs' },
  };
  const both = await s.request('GET', `/v2/stats?${query(q)}`, owner);
  const prev = { ...q, from: 2 * q.from - q.to, to: q.from };
  same(
    t,
    both.body.data,
    refStats([...events, ...otherEvents], q),
    refStats([...events, ...otherEvents], prev),
    'owner',
  );
  const anon = await s.request('GET', `/v2/stats?${query(q)}`);
  t.equal(anon.status, 200);
  same(
    t,
    anon.body.data,
    refStats(otherEvents, q),
    refStats(otherEvents, prev),
    'anonymous sees the public project only',
  );
  t.equal((await s.request('GET', `/v2/projects/site/stats?${query(q)}`)).status, 404, 'private project hidden');
});

t.test('bad parameters name the field', async (t) => {
  const field = async (qs: string) =>
    (await s.request('GET', `/v2/projects/site/stats?${qs}`, owner)).body.error.details.map(
      (d: { field: string }) => d.field,
    );
  t.same(await field('period=3d'), ['query.period']);
  t.same(await field('traffic=robots'), ['query.traffic']);
  t.same(await field('environment=dev'), ['query.environment']);
  t.same(await field('from=2024-01-01T00:00:00Z'), ['query.to']);
  t.same(await field('from=yesterday&to=2024-01-01T00:00:00Z'), ['query.from']);
  t.same(await field('from=2024-01-02T00:00:00Z&to=2024-01-01T00:00:00Z'), ['query.from']);
  t.same(await field('filter[colour]=red'), ['query.filter[colour]']);
  t.same(await field('filter[country]=!'), ['query.filter[country]']);
});

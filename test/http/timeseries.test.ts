// Timeseries against the reference: additive metrics sum to the statistic block, every bucket of
// pageviews, sessions and visitors matches TypeScript, empty buckets are 0, compare adds previous.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, matches, refSessions, refStats, send, type RefScope } from '../query/reference.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 10 * DAY;
const events = generate('t', start, 10, 80, 3);
// A visitor whose only event is an engagement report: counted in no bucket of visitors.
events.push({
  ...events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!,
  id: 'te900001',
  ts: start + 5 * DAY + 2.5 * HOUR,
  name: 'engagement',
  visitor: 'tv9001',
  session: 'tv9001s0',
});
await send(s, site.secretKey, events, owner.cookie);
const iso = (ms: number) => new Date(ms).toISOString();
const get = async (qs: string) => (await s.request('GET', `/v2/projects/site/timeseries?${qs}`, owner)).body;

t.test('daily buckets match the reference and sum to the stats', async (t) => {
  const q: RefScope = { from: start - 3 * DAY, to: today, traffic: 'human', environment: 'production' };
  const range = `from=${iso(q.from)}&to=${iso(q.to)}`;
  const stats = (await s.request('GET', `/v2/projects/site/stats?${range}`, owner)).body.data;
  for (const metric of ['pageviews', 'sessions', 'visitors', 'events'] as const) {
    const res = await get(`${range}&metric=${metric}`);
    t.equal(res.interval, 'day');
    t.equal(res.data.length, 13, '13 days, empty ones included');
    t.same(
      res.data.slice(0, 3).map((p: { value: number }) => p.value),
      [0, 0, 0],
      'empty buckets are 0',
    );
    res.data.forEach((p: { bucket: string; value: number }, i: number) => {
      const day = { ...q, from: q.from + i * DAY, to: q.from + (i + 1) * DAY };
      t.equal(p.bucket, iso(day.from));
      const inDay = events.filter((e) => matches(e, day));
      const want =
        metric === 'pageviews'
          ? inDay.filter((e) => e.name === 'pageview').length
          : metric === 'events'
            ? inDay.filter((e) => e.name !== 'engagement').length
            : metric === 'visitors'
              ? refStats(events, day).visitors
              : refSessions(events, q).filter((x) => x.first >= day.from && x.first < day.to).length;
      t.equal(p.value, want, `${metric} ${p.bucket}`);
    });
    const sum = res.data.reduce((a: number, p: { value: number }) => a + p.value, 0);
    if (metric === 'pageviews' || metric === 'sessions')
      t.equal(sum, stats[metric].value, `${metric} buckets sum to the stats value`);
  }
});

t.test('hourly default for 24 hours, filters, compare', async (t) => {
  const from = start + 4 * DAY;
  const q: RefScope = { from, to: from + DAY, traffic: 'all', environment: 'all', filters: { page: '!/docs' } };
  const res = await get(
    `from=${iso(q.from)}&to=${iso(q.to)}&traffic=all&environment=all&filter[page]=!/docs&metric=pageviews&compare=previous`,
  );
  t.equal(res.interval, 'hour');
  t.equal(res.data.length, 24);
  t.same(res.filters, { page: '!/docs' });
  res.data.forEach((p: { value: number; previous: number }, i: number) => {
    const cur = events.filter(
      (e) => e.name === 'pageview' && matches(e, { ...q, from: from + i * HOUR, to: from + (i + 1) * HOUR }),
    ).length;
    const prev = events.filter(
      (e) =>
        e.name === 'pageview' && matches(e, { ...q, from: from - DAY + i * HOUR, to: from - DAY + (i + 1) * HOUR }),
    ).length;
    t.same([p.value, p.previous], [cur, prev], `hour ${i}`);
  });
});

t.test('visitors by hour (read from events) match the reference in every bucket', async (t) => {
  const from = start + 5 * DAY;
  for (const q of [
    { from, to: from + DAY, traffic: 'human', environment: 'production' },
    { from, to: from + DAY, traffic: 'all', environment: 'all', filters: { page: '!/docs' } },
  ] satisfies RefScope[]) {
    const filter = q.filters ? '&filter[page]=!/docs' : '';
    const res = await get(
      `from=${iso(q.from)}&to=${iso(q.to)}&traffic=${q.traffic}&environment=${q.environment}${filter}&metric=visitors&interval=hour`,
    );
    t.equal(res.data.length, 24);
    const want = res.data.map(
      (_: unknown, i: number) => refStats(events, { ...q, from: from + i * HOUR, to: from + (i + 1) * HOUR }).visitors,
    );
    t.ok(
      want.some((n: number) => n > 1),
      'some hour has several visitors',
    );
    t.same(
      res.data.map((p: { value: number }) => p.value),
      want,
      `${q.traffic}/${q.environment}${filter}`,
    );
  }
});

t.test('ratios per bucket, weeks from Monday, months', async (t) => {
  const q: RefScope = { from: start, to: today, traffic: 'human', environment: 'production' };
  const range = `from=${iso(q.from)}&to=${iso(q.to)}`;
  const bounce = await get(`${range}&metric=bounce_rate`);
  const sessions = refSessions(events, q);
  bounce.data.forEach((p: { bucket: string; value: number }) => {
    const day = sessions.filter((x) => x.first >= Date.parse(p.bucket) && x.first < Date.parse(p.bucket) + DAY);
    const want = day.length === 0 ? 0 : day.filter((x) => x.pageviews === 1 && x.custom === 0).length / day.length;
    t.ok(Math.abs(p.value - want) < 1e-9, `bounce ${p.bucket}`);
  });
  const weeks = await get(`${range}&metric=pageviews&interval=week`);
  for (const p of weeks.data) t.equal(new Date(p.bucket).getUTCDay(), 1, `${p.bucket} is a Monday`);
  const months = await get(`${range}&metric=pageviews&interval=month`);
  for (const p of months.data) t.equal(new Date(p.bucket).getUTCDate(), 1);
  const total = (xs: { value: number }[]) => xs.reduce((a, p) => a + p.value, 0);
  t.equal(total(weeks.data), total(months.data));
  for (const metric of ['session_duration', 'pages_per_session'])
    t.equal((await get(`${range}&metric=${metric}`)).data.length, 10, metric);
});

t.test('bad parameters', async (t) => {
  const fields = async (qs: string) =>
    (await s.request('GET', `/v2/projects/site/timeseries?${qs}`, owner)).body.error.details.map(
      (d: { field: string }) => d.field,
    );
  t.same(await fields('period=7d'), ['query.metric']);
  t.same(await fields('metric=clicks'), ['query.metric']);
  t.same(await fields('metric=visitors&interval=minute'), ['query.interval']);
  t.same(await fields('metric=visitors&compare=yes'), ['query.compare']);
  t.same(await fields('metric=visitors&period=all&interval=hour&from=2016-01-01T00:00:00Z&to=2026-01-01T00:00:00Z'), [
    'query.interval',
  ]);
  const across = await s.request('GET', '/v2/timeseries?metric=visitors&period=7d');
  t.equal(across.status, 200);
  t.ok(
    across.body.data.every((p: { value: number }) => p.value === 0),
    'anonymous reads no private project',
  );
});

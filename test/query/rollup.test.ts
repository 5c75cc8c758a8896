// The day rollups (src/query/rollup): answers equal to the raw path for every selection, metric and
// interval they serve; days marked stale by a late event, a backfilled one and the visitor-internal
// PATCH, read from events until the builder (run here by hand) has rebuilt them; the flush never waits.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import {
  generate,
  refStats,
  send,
  type RefScope,
  type Sent,
  buildRollups,
  rollupScope,
  sameAsRaw,
} from './reference.ts';
import { environments, trafficKinds } from '../../src/query/params.ts';
import type { Scope } from '../../src/query/filters.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { runTimeseries, timeseriesSql } from '../../src/query/timeseries.ts';
import { readBreakdown } from '../../src/query/breakdown.ts';
import { parseMetricList } from '../../src/query/breakdown.ts';
import { rollupProjectGroups } from '../../src/query/rollup/projects.ts';
import { rollupRetentionCells } from '../../src/query/rollup/retention.ts';
import { rollupPageGroups } from '../../src/query/rollup/pages.ts';
import { ACQUISITION_DIMENSIONS, VISITOR_DIMENSIONS, rollupDimensionGroups } from '../../src/query/rollup/dims.ts';
import { rollupEventGroups, rollupPropGroups } from '../../src/query/rollup/props.ts';
import type { Filter } from '../../src/query/params.ts';
import { readFileSync } from 'node:fs';
import { rawRetentionCells } from '../../src/query/retention.ts';
import { jobs } from '../../src/jobs/registry.ts';
import { query } from '../../src/db/queries.ts';
import { nextDay } from '../../src/query/rollup/build.ts';

const DAY = 86_400_000;
const MIN = 60_000;
t.setTimeout(600_000); // thousands of reads compared with events: minutes on a loaded machine
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const site = await s.project('site');
const other = await s.project('other');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 10 * DAY;
const events = generate('r', start, 10, 120, 5);
await send(s, site.secretKey, events, owner.cookie);
await send(s, other.secretKey, generate('o', start, 10, 40, 9), owner.cookie);
const build = () => buildRollups(s);
await build();

const scopeOf = rollupScope;
const ranges: [number, number][] = [
  [start, today],
  [start + 3 * DAY, start + 7 * DAY],
  [start + 5 * DAY, start + 6 * DAY],
  [start - 4 * DAY, today],
];

/** Four selections of traffic and environment, human and production first. */
const SELECTIONS = [
  ['human', 'production'],
  ['all', 'all'],
  ['bots', 'all'],
  ['internal', 'preview'],
] as const;
/** The ranges and two more: from the middle of a day up to now, and into tomorrow. */
const edgeRanges = (): [number, number][] => [...ranges, [start + DAY / 2, Date.now()], [start + DAY, today + DAY]];

t.test('equal to the raw path for every selection', async (t) => {
  for (const [from, to] of ranges) {
    for (const traffic of trafficKinds) {
      for (const environment of environments) {
        const scope = scopeOf(from, to, traffic, environment, ['site', 'other']);
        const label = `${traffic}/${environment} ${(to - from) / DAY}d`;
        const [raw] = await statsSql(sql, scope);
        t.same(await rollupStats(sql, scope), raw, `stats ${label}`);
        t.same(
          await rollupStats(sql, { ...scope, projectIds: ['site'] }),
          (await statsSql(sql, { ...scope, projectIds: ['site'] }))[0],
          `stats one project ${label}`,
        );
      }
    }
  }
  const [days]: [{ n: number }?] = await sql`select count(*)::int as n from rollup_days where project_id = 'site'`;
  const first = Math.floor(Math.min(...events.map((e) => e.ts)) / DAY) * DAY;
  // Today too, once it began 5 minutes ago (the builder's grace for flushes stamped before midnight).
  const upto = Math.floor((Date.now() - 5 * MIN) / DAY) * DAY;
  t.equal(days!.n, (upto - first) / DAY + 1, 'every day from the first event to today was built, no more');
  const [split]: [{ n: number }?] =
    await sql`select count(distinct session_id)::int as n from rollup_day_split_sessions where project_id = 'site'`;
  t.ok(split!.n > 0, `${split!.n} sessions cross midnight: the correction is exercised`);
});

t.test('timeseries and project rows equal to the raw path', async (t) => {
  const metrics = [
    'visitors',
    'pageviews',
    'events',
    'sessions',
    'bounce_rate',
    'session_duration',
    'pages_per_session',
  ];
  for (const [from, to] of ranges) {
    for (const [traffic, environment] of [
      ['human', 'production'],
      ['all', 'all'],
      ['bots', 'preview'],
    ] as const) {
      const scope = scopeOf(from, to, traffic, environment, ['site', 'other']);
      for (const interval of ['day', 'week', 'month'] as const) {
        for (const metric of metrics) {
          t.same(
            await runTimeseries(sql, scope, metric, interval),
            await timeseriesSql(sql, scope, metric, interval),
            `${metric} by ${interval}`,
          );
        }
      }
      const list = parseMetricList(metrics.join(','), []);
      const rolled = await rollupProjectGroups(sql, scope, list);
      t.ok(rolled, 'the rollups answer');
      t.same(
        await readBreakdown(sql, scope, sql`e.project_id`, list, 0, 10, rolled!.grouped),
        await readBreakdown(sql, scope, sql`e.project_id`, list, 0, 10),
        `project rows ${traffic}/${environment}`,
      );
    }
  }
});

t.test('page rows equal to the raw path (means of time and scroll to float rounding)', async (t) => {
  const list = parseMetricList(
    'visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session,time_on_page,scroll_depth',
    [],
  );
  for (const [from, to] of ranges) {
    for (const [traffic, environment] of [
      ['human', 'production'],
      ['all', 'all'],
      ['internal', 'all'],
      ['human', 'preview'],
    ] as const) {
      const scope = scopeOf(from, to, traffic, environment);
      const rolled = await rollupPageGroups(sql, scope, list);
      t.ok(rolled, 'the rollups answer');
      const got = await readBreakdown(sql, scope, sql`e.path`, list, 0, 100, rolled!.grouped);
      const want = await readBreakdown(sql, scope, sql`e.path`, list, 0, 100);
      const label = `${traffic}/${environment} ${(to - from) / DAY}d`;
      t.same(
        got.rows.map((r) => r.value),
        want.rows.map((r) => r.value),
        `pages in order ${label}`,
      );
      t.equal(got.total, want.total);
      got.rows.forEach((r, i) => {
        const w = want.rows[i]!;
        for (const m of list) {
          if (m.name === 'time_on_page' || m.name === 'scroll_depth') {
            t.ok(
              Math.abs((r[m.member] as number) - (w[m.member] as number)) <=
                1e-9 * Math.max(1, Math.abs(w[m.member] as number)),
              `${label} ${r.value} ${m.name}`,
            );
          } else t.equal(r[m.member], w[m.member], `${label} ${r.value} ${m.name}`);
        }
        t.equal(r.share, w.share);
      });
    }
  }
});

t.test('retention cells equal to the raw path, and reused', async (t) => {
  for (const [from, to] of ranges) {
    for (const [traffic, environment] of [
      ['human', 'production'],
      ['all', 'all'],
      ['internal', 'all'],
    ] as const) {
      for (const interval of ['week', 'month'] as const) {
        const scope = scopeOf(from, to, traffic, environment);
        const raw = [...(await rawRetentionCells(sql, scope, interval))];
        t.same(await rollupRetentionCells(sql, scope, interval), raw, `${traffic}/${environment} by ${interval}`);
        t.same(await rollupRetentionCells(sql, scope, interval), raw, 'the second read, from the stored cells');
      }
    }
  }
});

const iso = (ms: number) => new Date(ms).toISOString();
const stats = async (q: RefScope) =>
  (
    await s.request(
      'GET',
      `/v2/projects/site/stats?from=${iso(q.from)}&to=${iso(q.to)}&traffic=${q.traffic}&environment=${q.environment}`,
      owner,
    )
  ).body.data;
const marks = async () =>
  (
    await sql<
      { day: string }[]
    >`select distinct to_char(day, 'YYYY-MM-DD') as day from rollup_stale_days where project_id = 'site' order by 1`
  ).map((r) => r.day);
const dayOf = (ms: number) => iso(ms).slice(0, 10);

t.test('a session mixing environments is computed per selection', async (t) => {
  const base = events.find((e) => !e.bot && !e.internal && !e.localhost)!;
  const at = start + 2 * DAY + 10 * 3_600_000;
  const mixed: Sent[] = [
    ['pageview', 'production', '/'],
    ['pageview', 'preview', '/docs'],
    ['signup', 'production', '/docs'],
    ['pageview', 'production', '/pricing'],
  ].map(([name, environment, path], i) => ({
    ...base,
    id: `mix${i}`,
    ts: at + i * 300_000,
    name: name!,
    environment: environment as Sent['environment'],
    path: path!,
    visitor: 'rmix',
    session: 'rmix-s',
  }));
  await send(s, site.secretKey, mixed, owner.cookie);
  events.push(...mixed);
  await build();
  const [row]: [{ n: number }?] =
    await sql`select count(distinct session_id)::int as n from events where project_id = 'site' and visitor_id = 'rmix'`;
  t.equal(row!.n, 1, 'one session');
  const list = parseMetricList(
    'visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session,time_on_page,scroll_depth',
    [],
  );
  for (const environment of environments) {
    const scope = scopeOf(start, today, 'human', environment);
    t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], `stats ${environment}`);
    const got = await readBreakdown(
      sql,
      scope,
      sql`e.path`,
      list,
      0,
      100,
      (await rollupPageGroups(sql, scope, list))!.grouped,
    );
    const want = await readBreakdown(sql, scope, sql`e.path`, list, 0, 100);
    t.same(
      got.rows.map((r) => [r.value, r.visitors, r.pageviews, r.sessions, r.bounceRate, r.pagesPerSession]),
      want.rows.map((r) => [r.value, r.visitors, r.pageviews, r.sessions, r.bounceRate, r.pagesPerSession]),
      `pages ${environment}`,
    );
  }
});

t.test('a late event marks its day stale; reads take events until the builder rebuilds it', async (t) => {
  const q: RefScope = { from: start, to: today, traffic: 'human', environment: 'production' };
  const scope = scopeOf(start, today, 'human', 'production');
  t.equal((await stats(q)).visitors.value, refStats(events, q).visitors);
  t.same(
    (await marks()).filter((d) => d < dayOf(today)),
    [],
    'no past day is stale after the build',
  );
  const at = start + 4 * DAY + 3_600_000;
  const late: Sent = {
    ...events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!,
    id: 'late1',
    ts: at,
    visitor: 'rlate',
    session: 'rlate-s',
  };
  await send(s, site.secretKey, [late], owner.cookie);
  await s.settle();
  t.ok((await marks()).includes(dayOf(at)), 'the late event marked its day');
  events.push(late);
  t.same(
    await rollupStats(sql, scope),
    (await statsSql(sql, scope))[0],
    'a read over the pending day does not build it: that day is read from events',
  );
  const raw = await stats(q);
  t.equal(raw.visitors.value, refStats(events, q).visitors, 'the read from events counts the late visitor');
  t.ok((await marks()).includes(dayOf(at)), 'the read took no mark');
  t.equal((await build()).days, 1, 'the builder rebuilds that day alone');
  t.notOk((await marks()).includes(dayOf(at)), 'the rebuild took the mark');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'the rebuilt day counts the late visitor');
  const got = await stats(q);
  t.equal(got.visitors.value, refStats(events, q).visitors);
  t.equal(got.pageviews.value, refStats(events, q).pageviews);
});

t.test('a backfilled event before the first day, and shuffled late events, are counted once built', async (t) => {
  const base = events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!;
  const early: Sent[] = [0, 1, 2, 3, 4, 5].map((i) => ({
    ...base,
    id: `early${i}`,
    // shuffled: days and times out of order, one session over two days before the first event
    ts: start - [2, 5, 1, 3, 2, 4][i]! * DAY + [600, 30, 900, 5, 40, 70][i]! * MIN,
    visitor: i < 2 ? 'rearly' : `rearly${i}`,
    session: i < 2 ? 'rearly-s' : `rearly${i}-s`,
  }));
  await send(s, site.secretKey, early, owner.cookie);
  await s.settle();
  events.push(...early);
  const scope = scopeOf(start - 6 * DAY, today, 'human', 'production');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'pending before the build: read from events');
  t.ok((await build()).days >= 4, 'the backfilled days are built');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'stats over the backfilled days');
  const q: RefScope = { from: start - 6 * DAY, to: today, traffic: 'human', environment: 'production' };
  const got = await stats(q);
  // Sessions are the ingest's (a session id over days apart is split there), so only these are compared.
  t.same([got.visitors.value, got.pageviews.value], [refStats(events, q).visitors, refStats(events, q).pageviews]);
});

t.test('the flush does not wait for a builder holding the marks it deletes', async (t) => {
  if (!process.env.DATABASE_URL) return t.pass('one session embedded: nothing runs beside a transaction');
  const day = dayOf(start + 6 * DAY);
  const late = (id: string): Sent => ({
    ...events[0]!,
    id,
    ts: start + 6 * DAY + 3_600_000,
    visitor: id,
    session: `${id}-s`,
  });
  await send(s, site.secretKey, [late('hold1')], owner.cookie);
  await s.settle();
  events.push(late('hold1'));
  await sql.begin(async (tx) => {
    // As the builder's first step: the project row FOR KEY SHARE, the day's marks and rows deleted, and the
    // transaction kept open.
    await tx`select id from projects where id = 'site' for key share`;
    await query(tx, 'delete_rollup_days', ['site', day, nextDay(day)]);
    const began = Date.now();
    await send(s, site.secretKey, [late('hold2')], owner.cookie);
    await s.settle();
    t.ok(
      Date.now() - began < 5_000,
      `the late event was flushed while the builder held the marks (${Date.now() - began} ms)`,
    );
  });
  events.push(late('hold2'));
  t.ok((await marks()).includes(day), 'the mark of the flush made meanwhile survives the build');
  await build();
  const q: RefScope = { from: start, to: today, traffic: 'all', environment: 'all' };
  t.equal((await stats(q)).pageviews.value, refStats(events, q).pageviews);
});

t.test('the visitor-internal PATCH marks the days of its events stale', async (t) => {
  const q: RefScope = { from: start, to: today, traffic: 'human', environment: 'production' };
  const visitor = events.find(
    (e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production' && e.visitor !== 'rlate',
  )!.visitor;
  await stats(q);
  const res = await s.request('PATCH', `/v2/projects/site/visitors/${visitor}`, {
    ...owner,
    body: { isInternal: true },
  });
  t.equal(res.status, 200);
  const days = [...new Set(events.filter((e) => e.visitor === visitor).map((e) => dayOf(e.ts)))];
  t.same(
    (await marks()).filter((d) => days.includes(d)),
    days,
    'every day of the visitor is marked',
  );
  for (const e of events) if (e.visitor === visitor) e.internal = true;
  const check = async (label: string) => {
    for (const traffic of ['human', 'internal'] as const) {
      const want = refStats(events, { ...q, traffic });
      const got = await stats({ ...q, traffic });
      t.same(
        [got.visitors.value, got.sessions.value, got.pageviews.value],
        [want.visitors, want.sessions, want.pageviews],
        `${traffic} ${label}`,
      );
    }
  };
  await check('from events');
  await build();
  t.same(
    (await marks()).filter((d) => days.includes(d)),
    [],
    'the builder took the marks',
  );
  await check('from the rebuilt rollups');
  const scope = scopeOf(start, today, 'internal', 'all');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'rollups equal to events');
});

t.test(
  'a session continued across midnight marks the earlier day once, until its rollup lists the session',
  async (t) => {
    const q: RefScope = { from: start, to: today, traffic: 'human', environment: 'production' };
    const base = events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!;
    const midnight = today - 2 * DAY;
    const at = (id: string, ts: number): Sent => ({
      ...base,
      id,
      ts,
      visitor: 'rnight',
      session: 'rnight-s',
      name: 'pageview',
    });
    const step = async (e: Sent) => {
      await send(s, site.secretKey, [e], owner.cookie);
      events.push(e);
      await s.settle();
    };
    await step(at('night1', midnight - 10 * MIN));
    await build();
    await stats(q);
    await step(at('night2', midnight + 5 * MIN));
    t.ok((await marks()).includes(dayOf(midnight - DAY)), 'the session now reaches into the day before: marked');
    await build();
    const got = await stats(q);
    t.same(
      [got.visitors.value, got.sessions.value, got.pageviews.value],
      [refStats(events, q).visitors, refStats(events, q).sessions, refStats(events, q).pageviews],
    );
    await step(at('night3', midnight + 15 * MIN));
    t.notOk((await marks()).includes(dayOf(midnight - DAY)), 'listed as split there already: not marked again');
    const again = await stats(q);
    t.same(
      [again.sessions.value, again.pageviews.value, again.bounceRate.value],
      [refStats(events, q).sessions, refStats(events, q).pageviews, refStats(events, q).bounceRate],
    );
  },
);

// A project whose visitors differ in every rolled-up dimension: user agents of the fixture (bots among
// them), four networks (one without geo), two releases, preview and internal traffic, and visitors who
// change device within a day, so a visitor-day spans several sets of values.
t.test('dimension rows under dimension filters equal to the raw path', async (t) => {
  const dims = await s.project('dims');
  const agents = (
    JSON.parse(readFileSync(new URL('../fixtures/user-agents.json', import.meta.url), 'utf8')) as {
      agents: { ua: string }[];
    }
  ).agents;
  const ips = ['81.2.69.142', '8.8.8.8', '1.1.1.1', '10.1.2.3'];
  const wire: { internal: boolean; event: Record<string, unknown> }[] = [];
  let n = 0;
  for (let v = 0; v < 90; v++) {
    for (let day = 0; day < 10; day += 1 + (v % 3)) {
      const at = start + day * DAY + ((v * 7_919) % 80_000) * 1000;
      for (let i = 0; i < 3 + (v % 4); i++) {
        const ua = agents[(v + (v % 5 === 0 ? i : 0)) % agents.length]!.ua;
        wire.push({
          internal: v % 11 === 0,
          event: {
            id: `d${n++}`,
            name: i % 4 === 3 ? 'engagement' : i % 5 === 4 ? 'signup' : 'pageview',
            visitor: `dv${v}`,
            ts: new Date(at + i * 60_000).toISOString(),
            environment: v % 9 === 0 ? 'preview' : 'production',
            release: day < 5 ? '1.0.0' : '1.1.0',
            page: { url: `https://dims.example.com/p${i}` },
            context: { ip: ips[(v + day) % ips.length]!, userAgent: ua },
          },
        });
      }
    }
  }
  for (const internal of [false, true]) {
    const batch = wire.filter((w) => w.internal === internal).map((w) => w.event);
    for (let i = 0; i < batch.length; i += 400) {
      const res = await s.request('POST', '/v2/ingest', {
        token: dims.secretKey,
        headers: internal ? { cookie: owner.cookie } : {},
        body: { events: batch.slice(i, i + 400) },
      });
      t.equal(res.status, 202);
    }
  }
  await build();
  const top = async (column: string) =>
    (
      await sql.unsafe<{ v: string }[]>(
        `select ${column} as v from events where project_id = 'dims' and ${column} is not null group by 1 order by count(*) desc, 1 limit 1`,
      )
    )[0]!.v;
  const f = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });
  const filterSets: Filter[][] = [
    [],
    [f('device', await top('device'))],
    [f('country', await top('country'), true), f('browser', await top('browser'))],
    [f('os', 'no such os')],
    [f('release', '1.1.0'), f('device', 'desktop', true)],
  ];
  const list = parseMetricList('visitors,pageviews,events', []);
  let compared = 0;
  let answered = 0;
  for (const [from, to] of [
    [start, today],
    [start + 3 * DAY, start + 6 * DAY],
  ] as const) {
    for (const [traffic, environment] of SELECTIONS) {
      for (const dimension of VISITOR_DIMENSIONS) {
        for (const filters of filterSets) {
          const scope = { ...scopeOf(from, to, traffic, environment, ['dims']), filters };
          const rolled = await rollupDimensionGroups(sql, scope, dimension, list);
          const key = sql`e.${sql(dimension)}::text`;
          const label = `${dimension} ${JSON.stringify(filters)} ${traffic}/${environment} ${(to - from) / DAY}d`;
          const want = await sameAsRaw(t, sql, scope, key, list, rolled, label);
          compared++;
          if (want.rows.length > 1) answered++;
        }
      }
    }
  }
  t.equal(compared, 2 * 4 * VISITOR_DIMENSIONS.size * filterSets.length);
  t.ok(answered > compared / 3, `over a third of the reads have several rows to compare (${answered} of ${compared})`);
  const [spread]: [{ n: number }?] = await sql`
    select count(*)::int as n from (
      select d.day, h from rollup_day_dims d, unnest(d.visitors) as h where d.project_id = 'dims'
      group by 1, 2 having count(distinct d.set_id) > 1
    ) x`;
  t.ok(spread!.n > 0, `visitors with several sets of values a day are exercised (${spread!.n} visitor-days)`);

  const scope = scopeOf(start, today, 'human', 'production', ['dims']);
  const mobile = { ...scope, filters: [f('device', 'mobile')] };
  const countries = async () =>
    readBreakdown(
      sql,
      mobile,
      sql`e.country::text`,
      list,
      0,
      1000,
      (await rollupDimensionGroups(sql, mobile, 'country', list))!.grouped,
    );
  const kept = await sql<
    { kind: string }[]
  >`select kind from rollup_range_values where project_id = 'dims' and kind like 'dim_visitors:%'`;
  t.ok(kept.length >= filterSets.length, `visitors per value are kept per range and question (${kept.length})`);
  const before = await countries();
  t.same(before, await readBreakdown(sql, mobile, sql`e.country::text`, list, 0, 1000), 'a kept answer is the raw one');
  const iphone = agents.find((a) => a.ua.includes('iPhone'))!.ua;
  const late = {
    id: 'dlate',
    name: 'pageview',
    visitor: 'dv-late',
    ts: new Date(start + 2 * DAY).toISOString(),
    environment: 'production',
    page: { url: 'https://dims.example.com/p0' },
    context: { ip: '81.2.69.142', userAgent: iphone },
  };
  t.equal((await s.request('POST', '/v2/ingest', { token: dims.secretKey, body: { events: [late] } })).status, 202);
  await s.settle();
  t.same(
    await countries(),
    await readBreakdown(sql, mobile, sql`e.country::text`, list, 0, 1000),
    'pending: that day is read from events, the others from the rollups',
  );
  await build();
  const after = await countries();
  t.same(
    after,
    await readBreakdown(sql, mobile, sql`e.country::text`, list, 0, 1000),
    'a late event into a past day: the day is rebuilt and the visitors counted again',
  );
  const total = (page: typeof after) => page.rows.reduce((n, r) => n + Number(r.visitors), 0);
  t.equal(total(after), total(before) + 1, 'one more mobile visitor with a country');
  const unsupported: [string, string, Partial<Scope>][] = [
    ['a dimension the sets do not keep', 'entry_page', {}],
    [
      'a filter on the other family and another dimension',
      'channel',
      { filters: [f('device', 'mobile'), f('prop:plan', 'pro')] },
    ],
    // `page=X` reads the page rows per set (rollup-cross.test.ts); an excluded page, events.
    ['a filter on another dimension', 'country', { filters: [f('page', '/p0', true)] }],
  ];
  for (const [why, range] of [
    ['a range that reaches into today', { from: new Date(start), to: new Date(today + DAY) }],
    ['a range of part of a day', { from: new Date(start + 3_600_000), to: new Date(today - 3 * DAY + 7_200_000) }],
  ] as const)
    for (const dimension of ['country', 'device', 'browser'])
      t.same(
        await readBreakdown(
          sql,
          { ...mobile, range },
          sql`e.${sql(dimension)}::text`,
          list,
          0,
          1000,
          (await rollupDimensionGroups(sql, { ...mobile, range }, dimension, list))!.grouped,
        ),
        await readBreakdown(sql, { ...mobile, range }, sql`e.${sql(dimension)}::text`, list, 0, 1000),
        `${why}: ${dimension}`,
      );
  for (const [why, dimension, change] of unsupported)
    t.equal(await rollupDimensionGroups(sql, { ...scope, ...change }, dimension, list), null, why);
  t.equal(
    await rollupDimensionGroups(sql, scope, 'country', parseMetricList('visitors,sessions', [])),
    null,
    'a metric the rows do not carry',
  );
});

// Referrers (search, social, other sites, none) and UTM fields, in every combination a visitor may bring.
t.test('acquisition rows under acquisition filters equal to the raw path', async (t) => {
  const acq = await s.project('acq');
  const referrers = [
    null,
    'https://www.google.com/search?q=x',
    'https://news.ycombinator.com/item?id=1',
    'https://t.co/abc',
    'https://blog.example.org/post',
  ];
  const utms = [
    '',
    '?utm_source=newsletter&utm_medium=email&utm_campaign=spring',
    '?utm_source=google&utm_medium=cpc&utm_term=shoes&utm_content=a',
    '?utm_source=newsletter&utm_medium=email&utm_campaign=autumn',
  ];
  const batch: Record<string, unknown>[] = [];
  for (let v = 0; v < 80; v++) {
    for (let day = 0; day < 10; day += 1 + (v % 3)) {
      const at = start + day * DAY + ((v * 7_919) % 80_000) * 1000;
      for (let i = 0; i < 2 + (v % 3); i++) {
        batch.push({
          id: `acq${v}-${day}-${i}`,
          name: i === 1 && v % 4 === 0 ? 'signup' : 'pageview',
          visitor: `av${v}`,
          ts: new Date(at + i * 60_000).toISOString(),
          environment: v % 9 === 0 ? 'preview' : 'production',
          page: {
            url: `https://acq.example.com/p${i}${utms[(v + day) % utms.length]}`,
            referrer: referrers[(v * 3 + day + (i > 1 ? 1 : 0)) % referrers.length],
          },
          context: {
            ip: '81.2.69.142',
            userAgent:
              'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
          },
        });
      }
    }
  }
  for (let i = 0; i < batch.length; i += 400)
    t.equal(
      (await s.request('POST', '/v2/ingest', { token: acq.secretKey, body: { events: batch.slice(i, i + 400) } }))
        .status,
      202,
    );
  await build();
  const f = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });
  const filterSets: Filter[][] = [
    [],
    [f('utm_source', 'newsletter')],
    [f('channel', 'Direct', true), f('utm_medium', 'email', true)],
    [f('referrer_domain', 'news.ycombinator.com')],
    [f('utm_campaign', 'no such campaign')],
  ];
  const list = parseMetricList('visitors,pageviews,events', []);
  let compared = 0;
  let answered = 0;
  for (const [from, to] of [
    [start, today],
    [start + 3 * DAY, start + 6 * DAY],
    // partial days at both ends, and a range reaching past today: those parts read from events
    [start + 3 * DAY + 5 * 3_600_000, today + DAY],
  ] as const) {
    for (const [traffic, environment] of [
      ['human', 'production'],
      ['all', 'all'],
      ['human', 'preview'],
    ] as const) {
      for (const dimension of ACQUISITION_DIMENSIONS) {
        for (const filters of filterSets) {
          const scope = { ...scopeOf(from, to, traffic, environment, ['acq']), filters };
          const rolled = await rollupDimensionGroups(sql, scope, dimension, list);
          const key = sql`e.${sql(dimension)}::text`;
          const label = `${dimension} ${JSON.stringify(filters)} ${traffic}/${environment} ${(to - from) / DAY}d`;
          const want = await sameAsRaw(t, sql, scope, key, list, rolled, label);
          compared++;
          if (want.rows.length > 1) answered++;
        }
      }
    }
  }
  t.equal(compared, 3 * 3 * ACQUISITION_DIMENSIONS.size * filterSets.length);
  t.ok(answered > compared / 3, `over a third of the reads have several rows to compare (${answered} of ${compared})`);
});

t.test('prop rows, alone and under event filters, equal to the raw path', async (t) => {
  // Errors carry props too, among them the stack and breadcrumbs the rollups leave out.
  const at = start + 3 * DAY + 7_200_000;
  const errors = [0, 1, 2].map((i) => ({
    id: `perr${i}`,
    name: 'error',
    visitor: `pv-err${i}`,
    ts: new Date(at + i * 60_000).toISOString(),
    environment: 'production',
    page: { url: 'https://shop.example.com/cart' },
    context: {
      ip: '81.2.69.142',
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
    props: {
      type: 'TypeError',
      message: i === 2 ? 'y is null' : 'x is undefined',
      plan: 'pro',
      stack: `TypeError: x\n    at go${i} (https://shop.example.com/a.js:1:${i + 1})`,
      breadcrumbs: `${at} click #buy${i}`,
    },
  }));
  t.equal((await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events: errors } })).status, 202);
  await build();
  const f = (value: string, exclude = false): Filter => ({ dimension: 'event', value, exclude });
  const list = parseMetricList('visitors,pageviews,events', []);
  let answered = 0;
  for (const [from, to] of ranges) {
    for (const [traffic, environment] of SELECTIONS) {
      for (const key of ['plan', 'amount', 'message', 'type']) {
        for (const filters of [
          [],
          [f('signup')],
          [f('pageview', true)],
          [f('error')],
          [f('signup'), f('click', true)],
        ]) {
          const scope = { ...scopeOf(from, to, traffic, environment), filters };
          const rolled = await rollupPropGroups(sql, scope, `prop:${key}`, list);
          const k = sql`(e.props ->> ${key})`;
          const label = `prop:${key} ${JSON.stringify(filters)} ${traffic}/${environment} ${(to - from) / DAY}d`;
          const want = await sameAsRaw(t, sql, scope, k, list, rolled, label);
          if (want.rows.length > 1) answered++;
        }
      }
    }
  }
  t.ok(answered > 50, `reads with several rows to compare: ${answered}`);
  // Partial days at both ends and a range past today: those parts are grouped from events.
  for (const [traffic, environment] of [
    ['human', 'production'],
    ['all', 'all'],
  ] as const)
    for (const key of ['plan', 'amount', 'message'])
      for (const filters of [[], [f('signup')], [f('pageview', true)]]) {
        const scope = { ...scopeOf(start + 2 * DAY + 3_600_000, today + DAY, traffic, environment), filters };
        const k = sql`(e.props ->> ${key})`;
        await sameAsRaw(
          t,
          sql,
          scope,
          k,
          list,
          await rollupPropGroups(sql, scope, `prop:${key}`, list),
          `partial days: prop:${key} ${JSON.stringify(filters)} ${traffic}/${environment}`,
        );
      }
  const scope = scopeOf(start, today, 'human', 'production');
  t.equal(await rollupPropGroups(sql, scope, 'prop:stack', list), null, 'an error stack is not rolled up');
  t.equal(await rollupPropGroups(sql, scope, 'prop:breadcrumbs', list), null, 'nor its breadcrumbs');
  t.equal(
    await rollupPropGroups(
      sql,
      { ...scope, filters: [{ dimension: 'country', value: 'GB', exclude: false }] },
      'prop:plan',
      list,
    ),
    null,
    'a filter other than event',
  );
  t.equal(
    await rollupPropGroups(sql, scope, 'prop:plan', parseMetricList('visitors,sessions', [])),
    null,
    'a metric the rows do not carry',
  );
  t.equal(await rollupPropGroups(sql, scope, 'country', list), null, 'not a prop');
});

t.test('event name rows, alone and under event filters, equal to the raw path', async (t) => {
  const f = (value: string, exclude = false): Filter => ({ dimension: 'event', value, exclude });
  const list = parseMetricList('visitors,pageviews,events', []);
  let answered = 0;
  for (const [from, to] of edgeRanges()) {
    for (const [traffic, environment] of SELECTIONS) {
      for (const filters of [[], [f('signup')], [f('pageview', true)], [f('signup'), f('click', true)]]) {
        const scope = { ...scopeOf(from, to, traffic, environment), filters };
        const rolled = await rollupEventGroups(sql, scope, list);
        const label = `event ${JSON.stringify(filters)} ${traffic}/${environment} ${new Date(from).toISOString()}–${new Date(to).toISOString()}`;
        const want = await sameAsRaw(t, sql, scope, sql`e.name`, list, rolled, label);
        if (want.rows.length > 1) answered++;
      }
    }
  }
  t.ok(answered > 20, `reads with several rows to compare: ${answered}`);
  // A visitor-level filter reads the per-set name rows (rollup-cross.test.ts); a page filter, events.
  const country = {
    ...scopeOf(start, today, 'all', 'all'),
    filters: [{ dimension: 'country', value: 'GB', exclude: false }],
  };
  await sameAsRaw(
    t,
    sql,
    country,
    sql`e.name`,
    list,
    await rollupEventGroups(sql, country, list),
    'event under country=GB',
  );
  t.equal(
    await rollupEventGroups(
      sql,
      { ...scopeOf(start, today, 'all', 'all'), filters: [{ dimension: 'page', value: '/', exclude: false }] },
      list,
    ),
    null,
    'a filter on another dimension reads events',
  );
});

t.test('page rows under event filters, and beside page filters, equal to the raw path', async (t) => {
  // Signups a server sends carry no path: they are in the share's base (every signup), in no page's row.
  // One comes from a visitor the site knows, two from visitors seen nowhere else.
  const at = start + 4 * DAY + 5_400_000;
  const server = ['rv3', 'pn-srv1', 'pn-srv2'].map((visitor, i) => ({
    id: `pn-srv${i}`,
    name: 'signup',
    visitor,
    ts: new Date(at + i * 60_000).toISOString(),
    environment: 'production',
    context: {
      ip: '81.2.69.142',
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
  }));
  t.equal((await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events: server } })).status, 202);
  await s.settle();
  await build();
  const f = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });
  const list = parseMetricList('visitors,pageviews,events', []);
  const filterSets: Filter[][] = [
    [f('event', 'signup')],
    [f('event', 'click')],
    [f('event', 'signup'), f('page', '/pricing')],
    [f('event', 'click'), f('page', '/'), f('page', '/docs')],
    [f('event', 'signup'), f('event', 'click')],
  ];
  const compare = async (label: string) => {
    let several = 0;
    for (const [from, to] of edgeRanges())
      for (const [traffic, environment] of SELECTIONS)
        for (const filters of filterSets) {
          const scope = { ...scopeOf(from, to, traffic, environment), filters };
          const rolled = await rollupPageGroups(sql, scope, list);
          const range = `${new Date(from).toISOString()}–${new Date(to).toISOString()}`;
          const want = await sameAsRaw(
            t,
            sql,
            scope,
            sql`e.path`,
            list,
            rolled,
            `${label}: page ${JSON.stringify(filters)} ${traffic}/${environment} ${range}`,
          );
          if (want.rows.length > 1) several++;
        }
    return several;
  };
  const several = await compare('built');
  t.ok(several > 30, `reads with several pages to compare: ${several} of 140`);
  // The server's signups are in the share's base and in no page's row: two of their visitors have no
  // signup on a page, so the base holds two visitors the rows do not (sameAsRaw compared the shares).
  const [counts] = await sql<{ all: number; paged: number }[]>`
    select count(distinct visitor_id)::int as all, count(distinct visitor_id) filter (where path is not null)::int as paged
    from events where project_id = 'site' and name = 'signup' and ts >= ${new Date(start)} and ts < ${new Date(today)}`;
  t.equal(counts!.all - counts!.paged, 2, 'two visitors signed up only from a server');
  // A late signup on a page into a built day: patched while marked, then folded by the builder.
  const late = {
    ...server[0]!,
    id: 'pn-late',
    visitor: 'pn-late-v',
    ts: new Date(start + 6 * DAY + 7_200_000).toISOString(),
    page: { url: 'https://shop.example.com/blog/a' },
  };
  t.equal((await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events: [late] } })).status, 202);
  await s.settle();
  t.ok((await marks()).includes(dayOf(Date.parse(late.ts))), 'the late signup marked its day');
  await compare('a late signup marked');
  // The migration counts the rows of the days built before it (0100): as the builder did, the late signup
  // whose mark is pending left out.
  const every = () => sql`select * from rollup_day_path_names order by project_id, day, name, path, tm, em`;
  const built = await every();
  const migration = readFileSync(new URL('../../sql/migrations/0100_rollup_path_names.sql', import.meta.url), 'utf8');
  await sql.begin(async (tx) => {
    await tx`delete from rollup_day_path_names`;
    await tx.unsafe(migration.slice(migration.indexOf('insert into rollup_day_path_names')));
  });
  t.ok(built.length > 50, `rows to compare: ${built.length}`);
  t.same(await every(), built, "the migration's rows equal the builder's");
  await build();
  await compare('the late signup folded');
  // What the rows do not hold reads events.
  const none = async (filters: Filter[], metrics = list) =>
    rollupPageGroups(sql, { ...scopeOf(start, today, 'human', 'production'), filters }, metrics);
  t.equal(await none([f('event', 'pageview')]), null, 'pageviews have no rows per name');
  t.equal(await none([f('event', 'engagement')]), null, 'nor engagement reports');
  t.equal(await none([f('event', 'signup', true)]), null, 'an excluded name');
  t.equal(await none([f('event', 'signup'), f('page', '/', true)]), null, 'an excluded page');
  t.equal(await none([f('event', 'signup'), f('country', 'GB')]), null, 'a filter on another dimension');
  t.equal(await none([f('event', 'signup')], parseMetricList('visitors,bounce_rate', [])), null, 'a session metric');
});

t.test('retention: the days that lost events are rebuilt, and the rollups equal events', async (t) => {
  await build();
  await sql`update projects set retention_days = 6 where id = 'other'`;
  const result = await jobs.retention!.run(s.loupe.services, new Date());
  t.ok(Number(result.events) > 0, `the job deleted events (${result.events})`);
  const scope = scopeOf(start, today, 'all', 'all', ['other']);
  const [pending]: [{ n: number }?] =
    await sql`select count(*)::int as n from rollup_stale_days where project_id = 'other'`;
  t.ok(pending!.n > 0, 'the days that lost events are pending');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'pending days read from events');
  await build();
  for (const [from, to] of ranges)
    for (const traffic of ['human', 'all'] as const) {
      const sc = scopeOf(from, to, traffic, 'all', ['other']);
      t.same(await rollupStats(sql, sc), (await statsSql(sql, sc))[0], `stats ${traffic} ${(to - from) / DAY}d`);
    }
});

t.test('deleting a project deletes its rollups and marks', async (t) => {
  const [before]: [{ n: number }?] = await sql`select count(*)::int as n from rollup_day_acq where project_id = 'acq'`;
  t.ok(before!.n > 0, 'the project has acquisition rows');
  await sql`insert into rollup_stale_days (project_id, day) values ('acq', ${dayOf(start)}::date)`;
  t.equal((await s.request('DELETE', '/v2/projects/acq', owner)).status, 200);
  const left = await sql<{ t: string; n: number }[]>`
    select 'days' as t, count(*)::int as n from rollup_days where project_id = 'acq'
    union all select 'totals', count(*)::int from rollup_day_totals where project_id = 'acq'
    union all select 'acq', count(*)::int from rollup_day_acq where project_id = 'acq'
    union all select 'acq sets', count(*)::int from rollup_acq_sets where project_id = 'acq'
    union all select 'marks', count(*)::int from rollup_stale_days where project_id = 'acq'`;
  t.same(
    left.filter((r) => r.n > 0),
    [],
    'nothing left',
  );
  t.same(await build(), { days: 0, built: [], skipped: 0 }, 'the builder finds nothing of it');
});

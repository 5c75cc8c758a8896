// Breakdowns by a visitor-level or an acquisition dimension under filters on both families, from the
// crossed day rollups (rollup_day_cross, 0068, src/query/rollup/dims.ts), equal to the raw path for
// every one of the nineteen dimensions, several filter sets, selections and ranges; after a late event.
// The chart (visitors, pageviews, events by day, week or month) under such filters from the same rows; the
// statistic block and the chart's session metrics from the session facts per set of values, and the page
// event, entry and exit page breakdowns under one family's filters from its per-set page (0089), event
// name and entry rows (0090); the page and event breakdowns under both families' from the per-pair rows
// (0094).
import t from 'tap';
import type { Test } from 'tap';
import { readFileSync } from 'node:fs';
import { startTestServer } from '../support/server.ts';
import { buildRollups, mostCommon, rollupScope, sameAsRaw, samePages } from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Filter } from '../../src/query/params.ts';
import { parseMetricList, readBreakdown } from '../../src/query/breakdown.ts';
import {
  ACQUISITION_DIMENSIONS,
  VISITOR_DIMENSIONS,
  crossedOf,
  printed,
  rollupDimensionGroups,
} from '../../src/query/rollup/dims.ts';
import { rollupDimensionSessionGroups } from '../../src/query/rollup/dim-sessions.ts';
import { rollupTimeseriesAgg } from '../../src/query/rollup/timeseries.ts';
import { timeseriesSql, type Interval } from '../../src/query/timeseries.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { rollupPageGroups } from '../../src/query/rollup/pages.ts';
import { rollupEventGroups } from '../../src/query/rollup/props.ts';
import { rollupEntryGroups } from '../../src/query/rollup/entry.ts';
import { dimensionSql, type Fragment } from '../../src/query/dimensions.ts';
import type { Metric } from '../../src/query/metrics.ts';
import { query } from '../../src/db/queries.ts';
import { statsSql } from '../../src/query/stats.ts';
import { planRange } from '../../src/query/rollup/segments.ts';
import { foldDay } from '../../src/query/rollup/fold.ts';
import { BACKGROUND_DUE, buildPendingRollups } from '../../src/query/rollup/builder.ts';

const DAY = 86_400_000;
t.setTimeout(600_000);
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const project = await s.project('cross');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 8 * DAY;
/** A new build_seq for the project's day at `ms`, as every build, fold and count of its facts gives it. */
const newBuildSeq = (ms: number) => sql`
  update rollup_days set build_seq = nextval('rollup_build_seq') where project_id = 'cross' and day = ${dayOf(ms)}::date`;
/** Drops the sums kept under `kind` (so the next read counts them from the rows as they are). */
const dropKept = (kind: string) =>
  sql`delete from rollup_range_values where project_id = 'cross' and kind like ${`${kind}:%`}`;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const agents = (
  JSON.parse(readFileSync(new URL('../fixtures/user-agents.json', import.meta.url), 'utf8')) as {
    agents: { ua: string }[];
  }
).agents;
const ips = ['81.2.69.142', '8.8.8.8', '1.1.1.1', '10.1.2.3'];
const referrers = [null, 'https://www.google.com/search?q=x', 'https://t.co/abc', 'https://blog.example.org/post'];
const utms = ['', '?utm_source=newsletter&utm_medium=email', '?utm_source=google&utm_medium=cpc&utm_campaign=spring'];
const batch: Record<string, unknown>[] = [];
for (let v = 0; v < 90; v++) {
  for (let day = 0; day < 8; day += 1 + (v % 3)) {
    const at = start + day * DAY + ((v * 7_919) % 80_000) * 1000;
    for (let i = 0; i < 2 + (v % 4); i++) {
      batch.push({
        id: `x${v}-${day}-${i}`,
        name: i === 1 && v % 4 === 0 ? 'signup' : 'pageview',
        visitor: `xv${v}`,
        ts: new Date(at + i * 60_000).toISOString(),
        environment: v % 9 === 0 ? 'preview' : 'production',
        page: {
          url: `https://cross.example.com/p${i}${utms[(v + day + i) % utms.length]}`,
          referrer: referrers[(v * 3 + day + (i > 1 ? 1 : 0)) % referrers.length],
        },
        // A few visitors change device within a day, so one visitor has several sets of both families.
        context: {
          ip: ips[(v + (v % 7 === 0 ? i : 0)) % ips.length],
          userAgent: agents[(v + (v % 5 === 0 ? i : 0)) % agents.length]!.ua,
        },
      });
    }
    // An engagement report on the last page of some visits (time on page and scroll depth), from no
    // referrer: under acquisition filters it belongs to another set than its pageview.
    if (v % 6 === 1)
      batch.push({
        id: `xr${v}-${day}`,
        name: 'engagement',
        visitor: `xv${v}`,
        ts: new Date(at + (1 + (v % 4)) * 60_000 + 20_000).toISOString(),
        environment: v % 9 === 0 ? 'preview' : 'production',
        props: { timeMs: 15_000 + v * 100, scrollDepth: 20 + (v % 70) },
        page: { url: `https://cross.example.com/p${1 + (v % 4)}`, referrer: null },
        context: { ip: ips[v % ips.length], userAgent: agents[v % agents.length]!.ua },
      });
  }
}
// Sessions that cross midnight, each page from another referrer (so mixed in acquisition values). They
// enter on /p0 and leave on /p1, as these visitors' sessions within a day do: the same (page, visitor)
// pairs are then in a day's rows and in the split sessions a read recomputes.
const midnightPages = ['/p0', '/m1', '/m2', '/p1'];
for (let v = 0; v < 4; v++)
  for (let i = 0; i < 4; i++)
    batch.push({
      id: `xm${v}-${i}`,
      name: 'pageview',
      visitor: `xv${v}`,
      ts: new Date(start + 2 * DAY + (i - 2) * 90_000 + v * 1000).toISOString(),
      page: { url: `https://cross.example.com${midnightPages[i]}`, referrer: referrers[(v + i) % referrers.length] },
      context: { ip: ips[v % ips.length], userAgent: agents[v % agents.length]!.ua },
    });
// Sessions whose browser changes but not their referrer (mixed in visitor-level values alone).
for (let v = 0; v < 4; v++)
  for (let i = 0; i < 3; i++)
    batch.push({
      id: `xd${v}-${i}`,
      name: 'pageview',
      visitor: `xd${v}`,
      ts: new Date(start + 4 * DAY + 3_600_000 * (v + 1) + i * 60_000).toISOString(),
      page: { url: `https://cross.example.com/d${i}`, referrer: referrers[v % referrers.length] },
      context: { ip: ips[v % ips.length], userAgent: agents[(v + i) % agents.length]!.ua },
    });
// Visits whose engagement report came from a referrer no other event has: its sets hold no non-engagement
// event, which is all a breakdown counts. Each views /p0 twice before it, so under `page=/p0` its session
// has two pageviews (no bounce) and, where the report is from /p0 too, lasts until it; in half of them the
// second view is from a preview build, so its events on /p0 mix classes.
for (let v = 0; v < 4; v++)
  for (const [i, name] of ['pageview', 'pageview', 'engagement'].entries())
    batch.push({
      id: `xe${v}-${i}`,
      name,
      visitor: `xe${v}`,
      ts: new Date(start + 5 * DAY + 3_600_000 * (v + 1) + i * 60_000).toISOString(),
      environment: i === 1 && v % 2 === 1 ? 'preview' : 'production',
      ...(name === 'engagement' ? { props: { timeMs: 4_000, scrollDepth: 40 + 10 * v } } : {}),
      // Half the reports from another page: under `page=/p3` that session has only a report, so it is none.
      page: {
        url: `https://cross.example.com/${i === 2 && v % 2 === 0 ? 'p3' : 'p0'}`,
        referrer: i === 2 ? 'https://news.ycombinator.com/item' : null,
      },
      context: { ip: ips[v % ips.length], userAgent: agents[v % agents.length]!.ua },
    });
// Visits from one referrer with no campaign, so pure in acquisition values; in half of them the device
// changes mid-visit (mixed in visitor-level values only). Each ends with a report on its last page.
for (let v = 0; v < 6; v++)
  for (const [i, name] of ['pageview', 'pageview', 'pageview', 'engagement'].entries())
    batch.push({
      id: `xa${v}-${i}`,
      name,
      visitor: `xa${v}`,
      ts: new Date(start + 2 * DAY + 7_200_000 * (v + 1) + i * 90_000).toISOString(),
      ...(name === 'engagement' ? { props: { timeMs: 9_000 + v * 1_000, scrollDepth: 30 + v * 10 } } : {}),
      page: { url: `https://cross.example.com/p${Math.min(i, 2)}`, referrer: 'https://www.google.com/search?q=plain' },
      context: {
        ip: ips[v % ips.length],
        userAgent: agents[(v + (v % 2 === 1 && i >= 2 ? 1 : 0)) % agents.length]!.ua,
      },
    });
// A server's events: no page, so no path (the page rows leave them out, the event name rows keep them).
for (let v = 0; v < 90; v += 5)
  for (let day = 1; day < 8; day += 3)
    batch.push({
      id: `xs${v}-${day}`,
      name: v % 2 === 0 ? 'invoice_paid' : 'export_done',
      visitor: `xv${v}`,
      ts: new Date(start + day * DAY + ((v * 7_919) % 80_000) * 1000 + 30_000).toISOString(),
      environment: v % 9 === 0 ? 'preview' : 'production',
      props: { plan: v % 3 === 0 ? 'pro' : 'free' },
      context: { ip: ips[v % ips.length], userAgent: agents[v % agents.length]!.ua },
    });
// Visits on pages no one else views, into which late events come (the late events test), so that their
// entry and exit pairs are held nowhere but in their day's rows: xo's at noon of the fourth day (with one
// the next morning, and one the day before on the page the late events move its entry to), xo2's just
// before its midnight, and xo3's just before the sixth day's midnight, on a day no other late event touches.
const lone = (id: string, visitor: string, at: number, path: string) =>
  batch.push({
    id,
    name: 'pageview',
    visitor,
    ts: new Date(at).toISOString(),
    page: { url: `https://cross.example.com${path}`, referrer: null },
    context: { ip: ips[0], userAgent: agents[0]!.ua },
  });
for (let i = 0; i < 2; i++) lone(`xo-${i}`, 'xo', start + 3 * DAY + 43_200_000 + i * 60_000, `/o${i}`);
lone('xo-next', 'xo', start + 4 * DAY + 7_200_000, '/o-next-day');
lone('xo-prev', 'xo', start + 2 * DAY + 43_200_000, '/o-before');
for (let i = 0; i < 2; i++) lone(`xo2-${i}`, 'xo2', start + 4 * DAY - 180_000 + i * 60_000, `/o2-${i}`);
for (let i = 0; i < 2; i++) lone(`xo3-${i}`, 'xo3', start + 6 * DAY - 180_000 + i * 60_000, `/o3-${i}`);
for (let i = 0; i < batch.length; i += 100) {
  const res = await s.request('POST', '/v2/ingest', {
    token: project.secretKey,
    body: { events: batch.slice(i, i + 100) },
  });
  if (res.status !== 202) throw new Error(`ingest: ${res.status}`);
}
const build = () => buildRollups(s);
await build();

const f = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });
const scopeOf = (from: number, to: number, traffic: Scope['traffic'], environment: Scope['environment']) =>
  rollupScope(from, to, traffic, environment, ['cross']);
const list = parseMetricList('visitors,pageviews,events', []);
const visitorsOnly = parseMetricList('visitors', []);
// An API client's entry page breakdown with the session metrics (0098), and those alone.
const withSessions = parseMetricList('visitors,pageviews,sessions,bounce_rate,session_duration,pages_per_session', []);
const sessionsAlone = parseMetricList('bounce_rate,sessions', []);

/** The selections the comparisons take: human production, everything, and human preview. */
const SELECTIONS = [
  ['human', 'production'],
  ['all', 'all'],
  ['human', 'preview'],
] as const;

/** The scopes under `filters` over the eight days and over three days within them, each selection. */
function scopesUnder(filters: Filter[], selections: readonly (typeof SELECTIONS)[number][]): Scope[] {
  return [
    [start, today],
    [start + 2 * DAY, start + 5 * DAY],
  ].flatMap(([from, to]) => selections.map(([traffic, e]) => ({ ...scopeOf(from!, to!, traffic, e), filters })));
}

const described = (s: Scope) =>
  `${JSON.stringify(s.filters)} ${s.traffic}/${s.environment} ${(s.range.to.getTime() - s.range.from.getTime()) / DAY}d`;

t.test('every dimension under filters on both families equals the raw path', async (t) => {
  const top = (column: string) => mostCommon(sql, column, 'cross');
  const filterSets: Filter[][] = [
    [f('device', await top('device')), f('channel', await top('channel'))],
    [f('country', await top('country'), true), f('utm_source', 'newsletter')],
    [f('browser', await top('browser')), f('referrer_domain', 't.co', true), f('utm_medium', 'cpc', true)],
    [f('os', 'no such os', true), f('utm_campaign', 'spring')],
  ];
  let compared = 0;
  let answered = 0;
  for (const dimension of [...VISITOR_DIMENSIONS, ...ACQUISITION_DIMENSIONS])
    for (const filters of filterSets)
      for (const scope of scopesUnder(filters, SELECTIONS)) {
        const rolled = await rollupDimensionGroups(sql, scope, dimension, list);
        const label = `${dimension} ${described(scope)}`;
        const want = await sameAsRaw(t, sql, scope, sql`e.${sql(dimension)}::text`, list, rolled, label);
        compared++;
        if (want.rows.length > 1) answered++;
      }
  t.equal(compared, 2 * 3 * 19 * 4);
  t.ok(answered > compared / 3, `over a third of the reads have several rows to compare (${answered} of ${compared})`);
});

/** A breakdown by `dimension` with session metrics from the session facts per set (dim-sessions.ts) against
 *  the raw path. */
async function sameSessions(t: Test, scope: Scope, dimension: string, metrics: Metric[], label: string) {
  const rolled = await rollupDimensionSessionGroups(sql, scope, dimension, metrics);
  return sameAsRaw(t, sql, scope, dimensionSql(sql, dimension), metrics, rolled, label);
}

t.test('the session metrics of every dimension, without filters and under filters, equal the raw path', async (t) => {
  // Sessions that mix classes, visitor-level sets or acquisition sets, cross midnight, end on an engagement
  // report from another referrer; ranges from noon to 18:00 (partial days read from events) too.
  const filterSets: Filter[][] = [
    [],
    [f('device', 'desktop')],
    [f('channel', 'Direct', true)],
    [f('country', 'GB', true), f('utm_source', 'newsletter', true)],
    // a session is then its events on the page: the path's sessions per set or pair of sets
    [f('page', '/p0')],
    [f('page', '/p2'), f('device', 'desktop')],
    [f('page', '/p1'), f('channel', 'Direct')],
    [f('page', '/p0'), f('browser', 'Chrome'), f('referrer_domain', 't.co', true)],
  ];
  const edges = (filters: Filter[]) =>
    SELECTIONS.map(([traffic, e]) => ({ ...scopeOf(start + DAY / 2, today - DAY / 4, traffic, e), filters }));
  let compared = 0;
  let several = 0;
  for (const dimension of [...VISITOR_DIMENSIONS, ...ACQUISITION_DIMENSIONS])
    for (const filters of filterSets)
      for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(filters)]) {
        const want = await sameSessions(t, scope, dimension, withSessions, `${dimension} ${described(scope)}`);
        compared++;
        if (want.rows.length > 1) several++;
      }
  t.equal(compared, 19 * 8 * 9);
  t.ok(several > compared / 3, `over a third list several values (${several} of ${compared})`);
  const week = scopeOf(start, today, 'human', 'production');
  await sameSessions(t, week, 'country', sessionsAlone, 'the session metrics alone');
  for (const filters of [[f('page', '/p0', true)], [f('event', 'signup')], [f('page', '/p0'), f('event', 'signup')]])
    t.equal(
      await rollupDimensionSessionGroups(sql, { ...week, filters }, 'country', withSessions),
      null,
      `under ${JSON.stringify(filters)}: events`,
    );
  t.equal(await rollupDimensionSessionGroups(sql, week, 'country', list), null, 'no session metric: the value rows');
  // The route takes them: with every cell of the visitor-level sets a bounce, its bounce rates move.
  const owner = await s.member('owner');
  const metrics = 'visitors,sessions,bounce_rate,session_duration';
  const q = new URLSearchParams({
    from: new Date(start).toISOString(),
    to: new Date(today).toISOString(),
    metrics,
    'filter[device]': 'desktop',
  });
  const desktop = { ...week, filters: [f('device', 'desktop')] };
  const want = await readBreakdown(sql, desktop, dimensionSql(sql, 'browser'), parseMetricList(metrics, []), 0, 50);
  const read = () => s.request('GET', `/v2/projects/cross/breakdown/browser?${q}`, owner);
  const res = await read();
  t.equal(res.status, 200);
  t.same(res.body.data, want.rows, 'over HTTP');
  // The cells of the days before yesterday: their sums per value are kept (with the days' build_seq, which
  // this change of their rows leaves alone), so the route reads the change once the kept sums are gone.
  await sql`create table kept_dim_sessions as select * from rollup_day_dim_sessions where project_id = 'cross'`;
  await sql`update rollup_day_dim_sessions set bounces = sessions where project_id = 'cross' and day < ${dayOf(today - DAY)}::date`;
  t.same((await read()).body.data, want.rows, 'the days before yesterday from their kept sums');
  await newBuildSeq(start + 2 * DAY);
  const tampered = await read();
  await sql`delete from rollup_day_dim_sessions where project_id = 'cross'`;
  await sql`insert into rollup_day_dim_sessions select * from kept_dim_sessions`;
  await sql`drop table kept_dim_sessions`;
  await dropKept('dim_sessions');
  t.notSame(tampered.body.data, want.rows, 'the route reads the cells');
  t.same((await read()).body.data, want.rows, 'and again once they are back');
});

/** The chart's session metrics (set-sessions.ts under filters). */
const SESSION_SERIES = ['sessions', 'bounce_rate', 'session_duration', 'pages_per_session'];

/** The chart under the scope's filters from the rollups against the raw path, bucket by bucket. */
async function sameSeries(t: Test, scope: Scope, metric: string, interval: Interval, label: string) {
  const rolled = await rollupTimeseriesAgg(sql, scope, metric, interval);
  const want = await timeseriesSql(sql, scope, metric, interval);
  if (!rolled) {
    t.fail(`the rollups answer: ${label}`);
    return want;
  }
  t.same(await timeseriesSql(sql, scope, metric, interval, rolled.agg), want, label);
  return want;
}

t.test('the chart under filters of one family or both equals the raw path', async (t) => {
  const filterSets: Filter[][] = [
    [f('device', 'desktop')],
    [f('country', 'GB', true), f('browser', 'Chrome')],
    [f('channel', 'Direct', true)],
    [f('utm_source', 'newsletter'), f('utm_medium', 'email')],
    [f('device', 'mobile', true), f('channel', 'Direct', true)],
    [f('country', 'US'), f('referrer_domain', 't.co', true), f('utm_campaign', 'spring', true)],
  ];
  let compared = 0;
  let counted = 0;
  for (const filters of filterSets)
    for (const scope of scopesUnder(filters, SELECTIONS.slice(0, 2)))
      for (const metric of ['visitors', 'pageviews', 'events', ...SESSION_SERIES])
        for (const interval of ['day', 'week', 'month'] as const) {
          const want = await sameSeries(t, scope, metric, interval, `${metric} by ${interval} ${described(scope)}`);
          compared++;
          if (want.some((p) => p.value > 0)) counted++;
        }
  t.equal(compared, 2 * 2 * 6 * 7 * 3);
  t.ok(counted > compared / 2, `most series count something (${counted} of ${compared})`);
  const week = scopeOf(start, today, 'human', 'production');
  for (const [filters, metric, why] of [
    [[f('page', '/p0', true)], 'visitors', 'an excluded page (its events without a path are in no page row)'],
    [[f('device', 'desktop')], 'conversion_rate', 'a metric the rows do not carry'],
  ] as const)
    t.equal(
      await rollupTimeseriesAgg(sql, { ...week, filters: [...filters] }, metric, 'day'),
      null,
      `${why} reads events`,
    );
});

t.test('the page breakdown under filters of one family or both equals the raw path', async (t) => {
  const filterSets: Filter[][] = [
    [f('device', 'desktop')],
    [f('country', 'GB', true), f('browser', 'Chrome')],
    [f('channel', 'Direct')],
    [f('referrer_domain', 't.co', true), f('utm_source', 'newsletter', true)],
    [f('device', 'desktop'), f('channel', 'Direct')],
    [f('country', 'GB', true), f('browser', 'Chrome'), f('utm_source', 'newsletter', true)],
  ];
  let compared = 0;
  for (const filters of filterSets)
    for (const scope of [
      ...scopesUnder(filters, SELECTIONS),
      ...SELECTIONS.map(([traffic, e]) => ({ ...scopeOf(start + DAY / 2, today - DAY / 4, traffic, e), filters })),
    ]) {
      const rolled = await rollupPageGroups(sql, scope, list);
      const want = await sameAsRaw(t, sql, scope, sql`e.path::text`, list, rolled, `page ${described(scope)}`);
      // Every metric: under both families from the facts per pair of sets (0099) and the mixed session-days'
      // events.
      await samePages(t, sql, scope, `page, every metric, ${described(scope)}`);
      compared++;
      // (Few visitors are in preview: under filters on both families some of those reads have one page.)
      const few = crossedOf(filters) && scope.environment === 'preview';
      if (want.rows.length < (few ? 1 : 2)) t.fail(`several pages to compare: ${described(scope)}`);
    }
  t.equal(compared, 6 * 9);
  const both = {
    ...scopeOf(start, today, 'human', 'production'),
    filters: [f('device', 'desktop'), f('channel', 'Direct')],
  };
  const underPage = { ...both, filters: [...both.filters, f('page', '/p1')] };
  const rolled = await rollupPageGroups(sql, underPage, list);
  t.ok(rolled, 'a page filter beside filters on both families takes the per-pair rows');
  const want = await sameAsRaw(t, sql, underPage, sql`e.path::text`, list, rolled, `page ${described(underPage)}`);
  t.same(
    want.rows.map((r) => r.value),
    ['/p1'],
    'of that page',
  );
  const sessionAndPage = parseMetricList('visitors,bounce_rate,time_on_page', []);
  t.ok(await rollupPageGroups(sql, both, sessionAndPage), 'session and page metrics under both families take rows');
  t.ok(
    (await sql`select count(*)::int as n from rollup_day_session_parts where project_id = 'cross'`)[0]!.n > 0,
    'some session-days are mixed (read from their events under both families)',
  );
  // Summed from the rows per pair of sets, not grouped from events: doubled there, they double in the answer.
  const [pairFacts] = await sql<{ rows: number }[]>`
    select count(*)::int as rows from rollup_day_cross_page_facts
    where project_id = 'cross' and sessions > 0 and time_count > 0`;
  t.ok(pairFacts!.rows > 0, `rows per pair of sets with session and page facts (${pairFacts!.rows})`);
  const sums = async () => {
    const rolled = await rollupPageGroups(sql, both, parseMetricList('sessions,time_on_page', []));
    const read = await readBreakdown(
      sql,
      both,
      sql`e.path`,
      parseMetricList('sessions,time_on_page', []),
      0,
      100,
      rolled!.grouped,
    );
    return read.rows.reduce((n, r) => [n[0]! + Number(r.sessions), n[1]! + Number(r.timeOnPageMs)], [0, 0]);
  };
  const summed = await sums();
  const keptSums = async () =>
    (
      await sql<{ n: number }[]>`
        select count(*)::int as n from rollup_range_values
        where project_id = 'cross' and kind like ${`page_facts:cross:${printed(both.filters)}%`}`
    )[0]!.n;
  t.ok((await keptSums()) > 0, "the days before yesterday: their rows' sums kept");
  const scale = (by: string, days: Fragment) => sql`
    update rollup_day_cross_page_facts set sessions = sessions ${sql.unsafe(by)}, time_sum = time_sum ${sql.unsafe(by)}
    where project_id = 'cross' and ${days}`;
  const settled = sql`day < ${dayOf(today - DAY)}::date`;
  await scale('* 2', settled);
  t.same(await sums(), summed, 'read again from the kept sums, which rows changed without a new build_seq leave alone');
  // Every build, fold and count of a day's facts gives the day a new build_seq: the sums are counted again.
  await newBuildSeq(start + 2 * DAY);
  const recounted = await sums();
  t.ok(recounted[0]! > summed[0]! && recounted[1]! > summed[1]!, `counted again (${summed}, now ${recounted})`);
  await scale('* 2', sql`not (${settled})`);
  await dropKept('page_facts');
  const doubled = await sums();
  await scale('/ 2', sql`true`);
  await dropKept('page_facts');
  t.ok(doubled[0]! > summed[0]! && doubled[1]! > summed[1]!, `read from the rows (${summed}, doubled ${doubled})`);
  t.same(await sums(), summed, 'and back');
  // `page=X`, alone or beside visitor-level filters: its one row with every metric, the session metrics
  // from the facts per value and set, the page facts X's under the other filters.
  for (const filters of [
    [f('page', '/p1')],
    [f('page', '/p1'), f('device', 'desktop')],
    [f('page', '/p0'), f('country', 'GB', true), f('browser', 'Chrome')],
    [f('page', '/p1'), f('channel', 'Direct')],
    [f('page', '/p2'), f('referrer_domain', 't.co', true)],
  ])
    for (const [traffic, environment] of SELECTIONS)
      for (const [from, to] of [
        [start, today],
        [start + DAY / 2, today - DAY / 4],
      ] as const) {
        const scope = { ...scopeOf(from, to, traffic, environment), filters };
        await samePages(t, sql, scope, `page, every metric, ${described(scope)}`);
      }
  t.equal(
    await rollupPageGroups(
      sql,
      { ...both, filters: [f('page', '/p1', true)] },
      parseMetricList('visitors,bounce_rate', []),
    ),
    null,
    'session metrics under an excluded page read events',
  );
  // `page=X` beside both families' filters: every metric, the session metrics from the path's facts per
  // pair of sets, the page facts from those per pair (0099).
  for (const filters of [
    [f('page', '/p1'), f('device', 'desktop'), f('channel', 'Direct')],
    [f('page', '/p2'), f('country', 'GB', true), f('utm_source', 'newsletter', true)],
  ])
    for (const [traffic, environment] of SELECTIONS) {
      const scope = { ...scopeOf(start, today, traffic, environment), filters };
      await samePages(t, sql, scope, `page, every metric, ${described(scope)}`);
    }
});

t.test(
  'the event breakdown under filters of one family, with or without event filters, equals the raw path',
  async (t) => {
    const filterSets: Filter[][] = [
      [f('device', 'desktop')],
      [f('country', 'GB', true), f('browser', 'Chrome')],
      [f('channel', 'Direct')],
      [f('referrer_domain', 't.co', true), f('utm_source', 'newsletter', true)],
      [f('channel', 'Direct'), f('event', 'pageview', true)],
      [f('event', 'invoice_paid'), f('device', 'mobile', true)],
      [f('device', 'desktop'), f('channel', 'Direct')],
      [f('country', 'GB', true), f('utm_source', 'newsletter', true), f('event', 'pageview', true)],
    ];
    let compared = 0;
    let serverEvents = 0;
    for (const filters of filterSets)
      for (const scope of [
        ...scopesUnder(filters, SELECTIONS),
        ...SELECTIONS.map(([traffic, e]) => ({ ...scopeOf(start + DAY / 2, today - DAY / 4, traffic, e), filters })),
      ]) {
        const rolled = await rollupEventGroups(sql, scope, list);
        const want = await sameAsRaw(t, sql, scope, sql`e.name::text`, list, rolled, `event ${described(scope)}`);
        compared++;
        if (want.rows.some((r) => r.value === 'invoice_paid' || r.value === 'export_done')) serverEvents++;
      }
    t.equal(compared, 8 * 9);
    t.ok(serverEvents > compared / 2, `most compare events without a page (${serverEvents} of ${compared})`);
    const both = {
      ...scopeOf(start, today, 'human', 'production'),
      filters: [f('device', 'desktop'), f('channel', 'Direct')],
    };
    t.ok(await rollupEventGroups(sql, both, list), 'filters on both families take the per-pair rows');
    t.equal(
      await rollupEventGroups(sql, { ...both, filters: [f('page', '/p0')] }, list),
      null,
      'a filter outside both families',
    );
  },
);

t.test('entry and exit page under filters of one family equal the raw path', async (t) => {
  const filterSets: Filter[][] = [
    [f('device', 'desktop')],
    [f('country', 'GB', true), f('browser', 'Chrome')],
    [f('channel', 'Direct')],
    [f('referrer_domain', 't.co', true), f('utm_source', 'newsletter', true)],
    [f('referrer_domain', 'news.ycombinator.com')],
    [f('device', 'desktop'), f('channel', 'Direct')],
    [f('country', 'GB', true), f('browser', 'Chrome'), f('utm_source', 'newsletter', true)],
  ];
  let compared = 0;
  let several = 0;
  for (const dimension of ['entry_page', 'exit_page'])
    for (const filters of filterSets)
      for (const [i, scope] of [
        ...scopesUnder(filters, SELECTIONS),
        ...SELECTIONS.map(([traffic, e]) => ({ ...scopeOf(start + DAY / 2, today - DAY / 4, traffic, e), filters })),
      ].entries()) {
        const rolled = await rollupEntryGroups(sql, scope, dimension, list);
        const label = `${dimension} ${described(scope)}`;
        const want = await sameAsRaw(t, sql, scope, dimensionSql(sql, dimension), list, rolled, label);
        compared++;
        if (want.rows.length > 1) several++;
        const key = dimensionSql(sql, dimension);
        for (const metrics of i === 0 ? [withSessions, sessionsAlone] : [withSessions]) {
          const named = `${label} ${metrics.map((m) => m.name)}`;
          await sameAsRaw(t, sql, scope, key, metrics, await rollupEntryGroups(sql, scope, dimension, metrics), named);
        }
      }
  t.equal(compared, 2 * 7 * 9);
  t.ok(several > compared / 2, `most list several pages (${several} of ${compared})`);
  // Over rolled days alone the split sessions are kept in the count with the days' rows, under a digest of
  // their pages: a session across the range's end whose exit page moves with an event after it (a day the
  // range leaves out) is counted under its new page.
  // Over the eight days too, whose count is kept over the days before yesterday and yesterday's rows and
  // the split sessions added to it (range-values.ts keptOverRolled).
  const moved = filterSets.flatMap((filters) => [
    { ...scopeOf(start, start + 2 * DAY, 'all', 'all'), filters },
    { ...scopeOf(start, today, 'all', 'all'), filters },
  ]);
  const exits = async (label: string) => {
    const out: string[] = [];
    for (const scope of moved) {
      const plan = await planRange(sql, scope, { setSessions: true });
      t.same(plan!.raw, [], `${label}: no part of ${described(scope)} from events`);
      const rolled = await rollupEntryGroups(sql, scope, 'exit_page', list);
      const key = dimensionSql(sql, 'exit_page');
      out.push(
        JSON.stringify(await sameAsRaw(t, sql, scope, key, list, rolled, `${label}: exit_page ${described(scope)}`)),
      );
      const sessions = await rollupEntryGroups(sql, scope, 'exit_page', withSessions);
      const named = `${label}: exit_page with session metrics ${described(scope)}`;
      out.push(JSON.stringify(await sameAsRaw(t, sql, scope, key, withSessions, sessions, named)));
    }
    return out;
  };
  const before = await exits('before the move');
  const last = batch.find((e) => e.id === 'xm0-3')!;
  const next = {
    ...last,
    id: 'xm0-moved',
    ts: new Date(Date.parse(last.ts as string) + 300_000).toISOString(),
    page: { url: 'https://cross.example.com/moved', referrer: null },
  };
  t.equal((await s.request('POST', '/v2/ingest', { token: project.secretKey, body: { events: [next] } })).status, 202);
  await build();
  const after = await exits('after');
  t.ok(
    after.some((x, i) => x !== before[i]),
    'the moved exit page changes the answer under some filter',
  );
  // Yesterday folded again: the eight days' count is the one kept over the days before it, plus
  // yesterday's rows and the split sessions.
  const yesterday = {
    ...batch[0]!,
    id: 'x-yesterday',
    visitor: 'xv-yesterday',
    ts: new Date(today - DAY / 2).toISOString(),
  };
  t.equal(
    (await s.request('POST', '/v2/ingest', { token: project.secretKey, body: { events: [yesterday] } })).status,
    202,
  );
  await build();
  await exits('after yesterday changed');
  const [rows] = await sql<{ rows: number; split: number }[]>`
    select (select count(*)::int from rollup_day_dim_entry where project_id = 'cross') as rows,
      (select count(*)::int from rollup_day_split_sessions where project_id = 'cross') as split`;
  t.ok(rows!.rows > 0 && rows!.split > 0, `rows per set and split sessions read from events (${JSON.stringify(rows)})`);
  const [crossed] = await sql<{ rows: number }[]>`
    select count(*)::int as rows from rollup_day_cross_entry where project_id = 'cross'`;
  t.ok(crossed!.rows > 0, `rows per pair of sets (${crossed!.rows})`);
  // The session metrics are summed from the rows (0098), not grouped from events: doubled there, they
  // double in the answer.
  const [facts] = await sql<{ dim: number; acq: number; crossed: number }[]>`
    select (select count(*)::int from rollup_day_dim_entry where project_id = 'cross' and sessions > 0) as dim,
      (select count(*)::int from rollup_day_acq_entry where project_id = 'cross' and sessions > 0) as acq,
      (select count(*)::int from rollup_day_cross_entry where project_id = 'cross' and sessions > 0) as crossed`;
  t.ok(facts!.dim > 0 && facts!.acq > 0 && facts!.crossed > 0, `rows with session facts (${JSON.stringify(facts)})`);
  const desktop = { ...scopeOf(start, today, 'all', 'all'), filters: [f('device', 'desktop')] };
  const sessionsOf = async () => {
    const rolled = await rollupEntryGroups(sql, desktop, 'entry_page', sessionsAlone);
    const read = await readBreakdown(
      sql,
      desktop,
      dimensionSql(sql, 'entry_page'),
      sessionsAlone,
      0,
      1000,
      rolled!.grouped,
    );
    return read.rows.reduce((n, r) => n + Number(r.sessions), 0);
  };
  const counted = await sessionsOf();
  await sql`update rollup_day_dim_entry set sessions = sessions * 2 where project_id = 'cross'`;
  const doubled = await sessionsOf();
  await sql`update rollup_day_dim_entry set sessions = sessions / 2 where project_id = 'cross'`;
  t.ok(doubled > counted && (await sessionsOf()) === counted, `read from the rows (${counted}, doubled ${doubled})`);
  // A session the day's build listed as split though its row says it lies within the day (a session whose
  // row the checkpoint had not written when the day was built): the rows per set leave it to the read,
  // which recomputes every listed session, so it counts once.
  const [listed] = await sql<{ id: string; day: string }[]>`
    select s.id, to_char(c.day, 'YYYY-MM-DD') as day from sessions s
    join rollup_set_session_days c on c.project_id = s.project_id and c.day = (s.started_at at time zone 'UTC')::date
    where s.project_id = 'cross' and (s.last_activity at time zone 'UTC')::date = c.day and s.entry_page is not null
      and not exists (select 1 from rollup_day_split_sessions sp where sp.project_id = s.project_id and sp.session_id = s.id)
      and exists (select 1 from events e where e.project_id = s.project_id and e.session_id = s.id and e.name = 'pageview')
    order by s.id limit 1`;
  const recount = async () => {
    await sql`delete from rollup_set_session_days where project_id = 'cross' and day = ${listed!.day}::date`;
    await build();
  };
  await sql`insert into rollup_day_split_sessions (project_id, day, session_id) values ('cross', ${listed!.day}, ${listed!.id})`;
  await recount();
  for (const filters of filterSets) {
    const scope = { ...scopeOf(start, today, 'all', 'all'), filters };
    for (const metrics of [list, withSessions]) {
      const rolled = await rollupEntryGroups(sql, scope, 'entry_page', metrics);
      const named = `listed as split, within its day: entry_page ${metrics.map((m) => m.name)} ${JSON.stringify(filters)}`;
      await sameAsRaw(t, sql, scope, dimensionSql(sql, 'entry_page'), metrics, rolled, named);
    }
  }
  await sql`delete from rollup_day_split_sessions where project_id = 'cross' and session_id = ${listed!.id}`;
  await recount();
  const week = scopeOf(start, today, 'human', 'production');
  t.equal(
    await rollupEntryGroups(
      sql,
      { ...week, filters: [f('device', 'desktop')] },
      'entry_page',
      parseMetricList('visitors,time_on_page', []),
    ),
    null,
    'a page metric under filters',
  );
});

/** The statistic block under the scope's filters from the rollups against the raw path. */
async function sameStats(t: Test, scope: Scope, label: string) {
  const rolled = await rollupStats(sql, scope);
  const [want] = await statsSql(sql, scope);
  if (!rolled) t.fail(`the rollups answer: ${label}`);
  else t.same(rolled, want, label);
  return want!;
}

t.test('the statistic block under filters of one family or both equals the raw path', async (t) => {
  const filterSets: Filter[][] = [
    [f('device', 'desktop')],
    [f('country', 'GB', true), f('browser', 'Chrome')],
    [f('channel', 'Direct', true)],
    [f('referrer_domain', 't.co')],
    [f('utm_source', 'newsletter'), f('utm_medium', 'email')],
    [f('device', 'mobile', true), f('channel', 'Direct', true)],
    [f('country', 'US'), f('referrer_domain', 't.co', true), f('utm_campaign', 'spring', true)],
  ];
  let compared = 0;
  let counted = 0;
  const edges = (from: number, to: number) => SELECTIONS.map(([traffic, e]) => scopeOf(from, to, traffic, e));
  for (const filters of filterSets)
    for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(start + DAY / 2, today - DAY / 4)]) {
      const want = await sameStats(t, { ...scope, filters }, `stats ${described({ ...scope, filters })}`);
      compared++;
      if (want.sessions > 0) counted++;
    }
  t.equal(compared, 7 * 9);
  t.ok(counted > compared / 2, `most blocks count sessions (${counted} of ${compared})`);
  const [cells] = await sql<{ dim_mixed: number; acq_mixed: number; both: number; days: number }[]>`
    select count(distinct session_id) filter (where dim_mixed)::int as dim_mixed,
      count(distinct session_id) filter (where acq_mixed)::int as acq_mixed,
      count(distinct session_id) filter (where dim_mixed and acq_mixed)::int as both,
      (select count(*)::int from rollup_set_session_days where project_id = 'cross') as days
    from rollup_day_session_parts where project_id = 'cross'`;
  t.ok(
    cells!.dim_mixed > cells!.both && cells!.acq_mixed > cells!.both && cells!.both > 0,
    `sessions mixed in either family and in both (${JSON.stringify(cells)})`,
  );
  t.ok(cells!.days >= 8, 'every day counted');
  const [pairs] = await sql<{ pairs: number; left: number }[]>`
    select (select count(*)::int from rollup_day_acq_pairs where project_id = 'cross') as pairs,
      (select count(distinct session_id)::int from rollup_day_session_parts
       where project_id = 'cross' and acq_mixed and not acq_paired) as left`;
  t.ok(pairs!.pairs > 0 && pairs!.left > 0, `sessions in acquisition pairs and others (${JSON.stringify(pairs)})`);
  t.equal(
    await rollupStats(sql, { ...scopeOf(start, today, 'human', 'production'), filters: [f('prop:plan', 'pro')] }),
    null,
    'a filter outside both families reads events',
  );
  // The cells' sums over the days before yesterday are kept: rows changed without a new build_seq (which
  // every build, fold and count of a day's facts gives it) are not read again until the kept sums go.
  const kept = { ...scopeOf(start, today, 'human', 'production'), filters: [f('channel', 'Direct', true)] };
  const want = await sameStats(t, kept, 'stats, counted and kept');
  const [stored] = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_range_values
    where project_id = 'cross' and kind like ${`sessions:acq:${printed(kept.filters)}%`}`;
  t.ok(stored!.n > 0, "the days before yesterday: their cells' sums kept");
  const double = (by: string) => sql`
    update rollup_day_acq_sessions set sessions = sessions ${sql.unsafe(by)}
    where project_id = 'cross' and day < ${dayOf(today - DAY)}::date`;
  await double('* 2');
  t.same(await rollupStats(sql, kept), want, 'read again from the kept sums');
  await newBuildSeq(start + 3 * DAY);
  t.ok(
    (await rollupStats(sql, kept))!.sessions > want.sessions,
    'once a day has a new build_seq, from the doubled rows',
  );
  await double('/ 2');
  await dropKept('sessions');
  t.same(await rollupStats(sql, kept), want, 'and back');
});

t.test(
  "under a page or event filter, alone or beside one family's or both: stats, the chart and breakdowns",
  async (t) => {
    const alone: Filter[][] = [
      [f('page', '/p0')],
      [f('page', '/p3')],
      [f('page', '/m1')],
      [f('page', '/nowhere')],
      [f('event', 'signup')],
      [f('event', 'pageview')],
      [f('event', 'invoice_paid')],
      [f('event', 'nothing')],
      // the last page of some visits, whose engagement report comes from another device than its pageview
      [f('page', '/p2')],
    ];
    const edges = (filters: Filter[]) =>
      SELECTIONS.map(([traffic, e]) => ({ ...scopeOf(start + DAY / 2, today - DAY / 4, traffic, e), filters }));
    let stats = 0;
    for (const filters of alone)
      for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(filters)]) {
        await sameStats(t, scope, `stats ${described(scope)}`);
        stats++;
      }
    t.equal(stats, 9 * 9);
    for (const filters of [[f('page', '/p0')], [f('event', 'signup')]])
      for (const scope of scopesUnder(filters, SELECTIONS.slice(0, 2)))
        for (const metric of ['visitors', 'pageviews', 'events', ...SESSION_SERIES])
          for (const interval of ['day', 'week'] as const)
            await sameSeries(t, scope, metric, interval, `${metric} by ${interval} ${described(scope)}`);
    // Beside one family's filters or both: the value rows (visitors, views, events), the family's page or
    // name rows for a dimension of the filters' family, the per-pair ones for the other's; sessions read events.
    const withFamily: Filter[][] = [
      [f('page', '/p0'), f('device', 'desktop')],
      [f('page', '/p1'), f('channel', 'Direct')],
      [f('page', '/p0'), f('country', 'GB', true), f('browser', 'Chrome')],
      [f('event', 'pageview'), f('device', 'desktop')],
      [f('event', 'signup', true), f('channel', 'Direct')],
      [f('page', '/p1'), f('device', 'desktop'), f('channel', 'Direct')],
      [f('page', '/p2'), f('country', 'GB', true), f('referrer_domain', 't.co', true)],
      [f('event', 'signup'), f('browser', 'Chrome'), f('utm_source', 'newsletter', true)],
      [f('event', 'invoice_paid'), f('os', 'no such os', true), f('channel', 'Direct')],
    ];
    let breakdowns = 0;
    for (const filters of [...alone.slice(0, 2), ...alone.slice(4, 6), ...withFamily]) {
      for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(filters)]) {
        for (const dimension of ['country', 'browser', 'channel', 'referrer_domain']) {
          const rolled = await rollupDimensionGroups(sql, scope, dimension, list);
          await sameAsRaw(
            t,
            sql,
            scope,
            dimensionSql(sql, dimension),
            list,
            rolled,
            `${dimension} ${described(scope)}`,
          );
          breakdowns++;
        }
        if (filters.some((x) => x.dimension === 'page')) {
          const pages = await rollupPageGroups(sql, scope, list);
          await sameAsRaw(t, sql, scope, sql`e.path::text`, list, pages, `page ${described(scope)}`);
        }
        await sameSeries(t, scope, 'visitors', 'day', `visitors by day ${described(scope)}`);
      }
    }
    t.equal(breakdowns, 13 * 9 * 4);
    // Beside one family's filters the session metrics too, from the path's facts per set (0097).
    const withSets = [
      [f('page', '/p0'), f('device', 'desktop')],
      [f('page', '/p0'), f('country', 'GB', true), f('browser', 'Chrome')],
      [f('page', '/p1'), f('device', 'mobile')],
      [f('page', '/p3'), f('country', 'GB')],
      [f('page', '/nowhere'), f('device', 'desktop')],
      [f('page', '/p2'), f('device', 'desktop')],
      [f('page', '/p2'), f('device', 'mobile')],
      [f('page', '/p1'), f('channel', 'Direct')],
      [f('page', '/p2'), f('referrer_domain', 't.co', true)],
      [f('page', '/p0'), f('utm_source', 'newsletter'), f('utm_medium', 'email')],
      // beside both families' filters, from the path's facts per pair of sets (0099)
      [f('page', '/p0'), f('device', 'desktop'), f('channel', 'Direct')],
      [f('page', '/p1'), f('country', 'GB', true), f('utm_source', 'newsletter', true)],
      [f('page', '/p2'), f('browser', 'Chrome'), f('referrer_domain', 't.co', true)],
      [f('page', '/p3'), f('device', 'mobile'), f('channel', 'Direct')],
    ];
    let beside = 0;
    for (const filters of withSets)
      for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(filters)]) {
        await sameStats(t, scope, `stats ${described(scope)}`);
        for (const metric of SESSION_SERIES) await sameSeries(t, scope, metric, 'day', `${metric} ${described(scope)}`);
        beside++;
      }
    t.equal(beside, 14 * 9);
    // Visitors, views and events per day under a page or an event filter beside both families' filters: the
    // per-pair page or name rows (0094).
    for (const filters of [
      [f('page', '/p1'), f('device', 'desktop'), f('channel', 'Direct')],
      [f('event', 'signup'), f('country', 'GB', true), f('utm_source', 'newsletter', true)],
      [f('event', 'invoice_paid'), f('os', 'no such os', true), f('channel', 'Direct')],
    ])
      for (const scope of [...scopesUnder(filters, SELECTIONS), ...edges(filters)])
        for (const metric of ['visitors', 'pageviews', 'events'])
          await sameSeries(t, scope, metric, 'day', `${metric} by day ${described(scope)}`);
    const [pathPairs] = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_day_cross_page_facts where project_id = 'cross' and path_sessions > 0`;
    t.ok(pathPairs!.n > 0, `the path's sessions per pair of sets (${pathPairs!.n} rows)`);
    const [mixedSets] = await sql<{ n: number }[]>`
    select count(*)::int as n from (
      select 1 from rollup_day_value_parts where project_id = 'cross' and kind = 0
      group by day, session_id, value having count(distinct dim_set_id) > 1 and not bool_or(class_mixed)) x`;
    t.ok(
      mixedSets!.n > 0,
      `sessions whose events on a path mix visitor-level sets are kept as parts (${mixedSets!.n})`,
    );
    const [mixedAcq] = await sql<{ n: number }[]>`
    select count(distinct (day, session_id, value))::int as n from rollup_day_value_parts
    where project_id = 'cross' and kind = 0 and acq_mixed and not class_mixed`;
    t.ok(mixedAcq!.n > 0, `and acquisition sets (${mixedAcq!.n})`);
    const [parts] = await sql<{ kinds: number[] }[]>`
    select array_agg(distinct kind order by kind)::int[] as kinds from rollup_day_value_parts where project_id = 'cross'`;
    t.same(parts!.kinds, [0, 1], 'sessions whose events of a path or a name mix classes are kept as parts');
    const week = scopeOf(start, today, 'human', 'production');
    const under = (...filters: Filter[]) => ({ ...week, filters });
    t.ok(
      await rollupStats(sql, under(f('page', '/p0'), f('device', 'desktop'), f('channel', 'Direct'))),
      'stats beside both families',
    );
    t.equal(await rollupStats(sql, under(f('event', 'signup'), f('device', 'desktop'))), null, 'an event beside them');
    t.equal(
      await rollupStats(sql, under(f('event', 'signup'), f('device', 'desktop'), f('channel', 'Direct'))),
      null,
      'an event beside both families',
    );
    t.equal(await rollupStats(sql, under(f('page', '/p0', true))), null, 'stats under an excluded page');
    t.equal(await rollupStats(sql, under(f('event', 'signup', true))), null, 'stats under an excluded event');
    t.ok(
      await rollupDimensionGroups(sql, under(f('page', '/p0'), f('device', 'desktop')), 'channel', list),
      'a breakdown of the other family, from the per-pair page rows',
    );
    t.equal(
      await rollupDimensionGroups(sql, under(f('page', '/p0'), f('event', 'pageview')), 'country', list),
      null,
      'a page and an event filter together',
    );
    t.equal(await rollupPageGroups(sql, under(f('page', '/p0', true)), list), null, 'pages under an excluded page');
    t.ok(await rollupPageGroups(sql, under(f('event', 'signup')), list), 'pages under an event filter (0100)');
    t.equal(
      await rollupPageGroups(sql, under(f('event', 'signup'), f('device', 'desktop')), list),
      null,
      'pages under an event filter beside a family',
    );
  },
);

t.test('late events: equal while their day is pending, folded, and counted again', async (t) => {
  const scope = {
    ...scopeOf(start, today, 'human', 'production'),
    filters: [f('channel', 'Direct', true), f('country', 'GB')],
  };
  const late = { ...batch[0]!, id: 'x-late', visitor: 'xv-late', ts: new Date(start + 3 * DAY + 5_000).toISOString() };
  // And one into a session the day's facts hold (xv3's visit of that day, five pageviews a minute apart),
  // from another referrer: the session gains a custom event on a page it had not touched and a part in
  // another acquisition set.
  const joined = batch.find((e) => e.id === 'x3-3-1')!;
  const into = {
    ...joined,
    id: 'x-late-into',
    name: 'signup',
    ts: new Date(Date.parse(joined.ts as string) + 30_000).toISOString(),
    page: { url: 'https://cross.example.com/late?utm_source=late', referrer: 'https://t.co/late' },
  };
  // And two into the solo visit, before and after it: its entry and exit pages move to pages it had not
  // viewed, so the pairs the entry rows per set hold of it are no longer true.
  const solo = batch.filter((e) => e.visitor === 'xo');
  const around = [
    { ...solo[0]!, id: 'xo-before', ts: new Date(Date.parse(solo[0]!.ts as string) - 60_000).toISOString() },
    { ...solo[1]!, id: 'xo-after', ts: new Date(Date.parse(solo[1]!.ts as string) + 60_000).toISOString() },
  ].map((e, i) => ({
    ...e,
    page: { url: `https://cross.example.com/o-${i === 0 ? 'before' : 'after'}`, referrer: null },
  }));
  // And one that continues xo2's visit past midnight: its day gets a session mark (no event of it changed),
  // and the visit's exit page moves to the next day's page.
  const past = batch.find((e) => e.id === 'xo2-1')!;
  const stretch = {
    ...past,
    id: 'xo2-after-midnight',
    ts: new Date(start + 4 * DAY + 60_000).toISOString(),
    page: { url: 'https://cross.example.com/o2-after-midnight', referrer: null },
  };
  // And one that continues xo3's visit the same way on a day with no other late event: once its session
  // mark is folded, nothing of that day is marked or listed as an event its facts lack, but their entry
  // rows per set still hold the visit as lying within the day, under its exit page then.
  const alone = {
    ...batch.find((e) => e.id === 'xo3-1')!,
    id: 'xo3-after-midnight',
    ts: new Date(start + 6 * DAY + 60_000).toISOString(),
    page: { url: 'https://cross.example.com/o3-after-midnight', referrer: null },
  };
  const events = [late, into, ...around, stretch, alone];
  t.equal((await s.request('POST', '/v2/ingest', { token: project.secretKey, body: { events } })).status, 202);
  await s.settle();
  const [sessions] = await sql<{ n: number }[]>`
    select count(distinct session_id)::int as n from events where project_id = 'cross' and id in ('x3-3-1', 'x-late-into')`;
  t.equal(sessions!.n, 1, 'the second late event joins a session the facts hold');
  const [soloSessions] = await sql<{ n: number }[]>`
    select count(distinct session_id)::int as n from events
    where project_id = 'cross' and visitor_id = 'xo' and ts >= ${new Date(start + 3 * DAY)} and ts < ${new Date(start + 4 * DAY)}`;
  t.equal(soloSessions!.n, 1, 'the solo visit keeps one session');
  const [moved] = await sql<{ entry: string; exit: string }[]>`
    select entry_page as entry, exit_page as exit from sessions
    where project_id = 'cross' and visitor_id = 'xo' and started_at >= ${new Date(start + 3 * DAY)}
      and started_at < ${new Date(start + 4 * DAY)}`;
  t.same(moved, { entry: '/o-before', exit: '/o-after' }, 'its entry and exit pages moved');
  const [marks] = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_stale_days
    where project_id = 'cross' and day = ${new Date(start + 3 * DAY).toISOString().slice(0, 10)}::date
      and event_id is null and session_id in (select session_id from events where id = 'xo2-after-midnight')`;
  t.equal(marks!.n, 1, "xo2's visit, continued past midnight, marks its day with its session");
  const key = sql`e.browser::text`;
  // The session metrics per value too (dim-sessions.ts), under these filters, without any, and under one
  // family's: every session-day the late events touch as it is now and as the facts hold it.
  const everything = scopeOf(start, today, 'all', 'all');
  const sessionScopes = [scope, everything, { ...everything, filters: [f('channel', 'Direct')] }];
  const compare = async (label: string) => {
    await sameAsRaw(t, sql, scope, key, list, await rollupDimensionGroups(sql, scope, 'browser', list), label);
    for (const at of sessionScopes)
      for (const dimension of ['browser', 'channel'])
        await sameSessions(t, at, dimension, withSessions, `${dimension} with its sessions ${described(at)} ${label}`);
  };
  // The chart under filters the late event meets (its visitor is new, from GB, direct; all traffic, as the
  // bot score of an event sent without the SDK's signals leaves it out of human): its day's events bucketed
  // as the rows' days are, by day, week and month.
  const series = async (label: string) => {
    for (const filters of [
      [f('channel', 'Direct')],
      [f('country', 'GB'), f('channel', 'Direct')],
      [f('page', '/p0')],
      [f('page', '/p0'), f('country', 'GB')],
      [f('page', '/p0'), f('channel', 'Direct')],
      [f('page', '/p0'), f('country', 'GB'), f('channel', 'Direct')],
    ])
      for (const m of ['visitors', 'pageviews', ...SESSION_SERIES])
        for (const interval of ['day', 'week', 'month'] as const)
          await sameSeries(
            t,
            { ...scopeOf(start, today, 'all', 'all'), filters },
            m,
            interval,
            `${label}: ${m} by ${interval} ${JSON.stringify(filters)}`,
          );
  };
  // The statistic block under the same filters: the late day's cells beside the share of its late events
  // (marked, then folded into the day's rows and listed as the events the cells lack, 0091), until the
  // builder counts them again.
  // Under `utm_source!=google` the late event into xv3's visit is kept, and that visit, whose events carry
  // several acquisition sets, is one the page facts take from its events (as counted, without it).
  const pages = async (label: string) => {
    // Under filters on both families, visitors and views per page, event name, entry and exit page from the
    // per-pair rows, and every metric of the page breakdown (0099).
    const both = { ...scopeOf(start, today, 'all', 'all'), filters: [f('country', 'GB'), f('channel', 'Direct')] };
    const crossed = async (key: Fragment, metrics: Metric[], rolled: { grouped: Fragment } | null, what: string) =>
      sameAsRaw(t, sql, both, key, metrics, rolled, `${label}: ${what} ${JSON.stringify(both.filters)}`);
    await crossed(sql`e.path::text`, list, await rollupPageGroups(sql, both, list), 'page');
    await samePages(t, sql, both, `${label}: page, every metric, ${JSON.stringify(both.filters)}`);
    await crossed(sql`e.name::text`, list, await rollupEventGroups(sql, both, list), 'event');
    for (const dimension of ['entry_page', 'exit_page'])
      for (const metrics of [list, visitorsOnly, withSessions]) {
        const rolled = await rollupEntryGroups(sql, both, dimension, metrics);
        await crossed(dimensionSql(sql, dimension), metrics, rolled, `${dimension} ${metrics.map((m) => m.name)}`);
      }
    for (const filters of [[f('channel', 'Direct')], [f('country', 'GB')], [f('utm_source', 'google', true)]]) {
      const scope = { ...scopeOf(start, today, 'all', 'all'), filters };
      const rolled = await rollupPageGroups(sql, scope, list);
      await sameAsRaw(t, sql, scope, sql`e.path::text`, list, rolled, `${label}: page ${JSON.stringify(filters)}`);
      await samePages(t, sql, scope, `${label}: page, every metric, ${JSON.stringify(filters)}`);
      const named = await rollupEventGroups(sql, scope, list);
      await sameAsRaw(t, sql, scope, sql`e.name::text`, list, named, `${label}: event ${JSON.stringify(filters)}`);
      // Views and events from events on the late day; visitors alone (the panels) from its rows, the
      // touched visitors counted again.
      // Also up to the late day's midnight (xo2's visit is split by events outside the range, which its
      // session mark alone names), into the next morning (xo's next visit, from events, beside them), and up
      // to xo3's midnight (its day's only change a session mark, the next day's event outside the range).
      for (const dimension of ['entry_page', 'exit_page']) {
        const key = dimensionSql(sql, dimension);
        for (const metrics of [list, visitorsOnly, withSessions]) {
          const rolled = await rollupEntryGroups(sql, scope, dimension, metrics);
          const named = `${label}: ${dimension} ${metrics.map((m) => m.name)} ${JSON.stringify(filters)}`;
          await sameAsRaw(t, sql, scope, key, metrics, rolled, named);
        }
        for (const to of [start + 4 * DAY, start + 4 * DAY + 8 * 3_600_000, start + 6 * DAY]) {
          const upTo = { ...scopeOf(start, to, 'all', 'all'), filters };
          const rolled = await rollupEntryGroups(sql, upTo, dimension, visitorsOnly);
          const named = `${label}: ${dimension} visitors ${JSON.stringify(filters)} to ${new Date(to).toISOString()}`;
          await sameAsRaw(t, sql, upTo, key, visitorsOnly, rolled, named);
        }
      }
    }
  };
  const stats = async (label: string) => {
    for (const filters of [
      [f('channel', 'Direct')],
      [f('country', 'GB'), f('channel', 'Direct')],
      [f('country', 'GB')],
      [f('page', '/p0')],
      [f('event', 'pageview')],
      [f('page', '/p0'), f('country', 'GB')],
      [f('page', '/late'), f('country', 'GB')],
      [f('page', '/p1'), f('device', 'desktop')],
      [f('page', '/late'), f('utm_source', 'late')],
      [f('page', '/p0'), f('channel', 'Direct', true)],
    ])
      await sameStats(
        t,
        { ...scopeOf(start, today, 'all', 'all'), filters },
        `${label}: stats ${JSON.stringify(filters)}`,
      );
  };
  const lateDay = new Date(start + 3 * DAY).toISOString().slice(0, 10);
  const aloneDay = new Date(start + 5 * DAY).toISOString().slice(0, 10);
  const counted = async () =>
    (await sql`select 1 from rollup_set_session_days where project_id = 'cross' and day = ${lateDay}::date`).length ===
    1;
  const lacking = async () =>
    (
      await sql<{ id: string }[]>`
      select event_id as id from rollup_set_session_late where project_id = 'cross' and day = ${lateDay}::date
      order by 1`
    ).map((r) => r.id);
  const splitSince = async () =>
    (
      await sql<{ id: string }[]>`
      select session_id as id from rollup_set_session_split where project_id = 'cross' and day = ${aloneDay}::date`
    ).map((r) => r.id);
  const sessionOf = async (id: string) =>
    (await sql<{ id: string }[]>`select session_id as id from events where project_id = 'cross' and id = ${id}`)[0]!.id;
  const planned = async () => {
    const scope = { ...scopeOf(start, today, 'all', 'all'), filters: [f('channel', 'Direct')] };
    const [patched, entry] = [
      await planRange(sql, scope, { setSessions: true, patch: true }),
      await planRange(sql, scope, { setSessions: true, entry: true }),
    ];
    // (xo2's late event makes the next day late too.)
    return {
      late: patched!.late.filter((d) => d === lateDay),
      rolled: patched!.rolled.includes(lateDay),
      entry: entry!.rolled.includes(lateDay),
      alone: entry!.rolled.includes(aloneDay),
    };
  };
  // Pending: the day's facts stay counted and the reads under filters add the marked events' share; the
  // entry rows per set have no such share, so their read of views and events takes the day from events.
  t.ok(await counted(), 'a mark leaves the facts counted');
  t.same(
    await planned(),
    { late: [lateDay], rolled: true, entry: false, alone: false },
    'pending: patched, entry from events',
  );
  await compare('pending');
  await series('pending');
  await stats('pending');
  await pages('pending');
  // Folded: the facts kept as counted, the two events listed as the ones they lack; on xo3's day, its
  // session, which the entry rows per set hold as lying within the day, listed as split since.
  t.equal(await foldDay(sql, 'cross', lateDay), 'folded');
  t.equal(await foldDay(sql, 'cross', aloneDay), 'folded');
  t.same(
    await splitSince(),
    [await sessionOf('xo3-after-midnight')],
    "xo3's session, stretched past its day's counted facts, listed as split since",
  );
  t.ok(await counted(), 'a fold keeps the facts');
  t.same(
    await lacking(),
    ['x-late', 'x-late-into', 'xo-after', 'xo-before'],
    'the fold lists the events the facts lack',
  );
  t.same(
    await planned(),
    { late: [lateDay], rolled: true, entry: false, alone: false },
    'folded: patched, entry from events',
  );
  await compare('folded');
  await series('folded');
  await stats('folded, the facts beside the events they lack');
  await pages('folded');
  // The builder counts the facts again once BACKGROUND_DUE's many events are listed or the oldest is its
  // age (at once in the other tests' builds).
  await buildPendingRollups(sql, ['cross'], { due: BACKGROUND_DUE });
  t.equal((await lacking()).length, 4, 'four fresh events listed: the background builder leaves the day');
  t.equal((await splitSince()).length, 1, 'and the day with a fresh split session');
  await sql`update rollup_set_session_late set at = now() - make_interval(secs => ${BACKGROUND_DUE.ageS + 1})
    where project_id = 'cross'`;
  await sql`update rollup_set_session_split set at = now() - make_interval(secs => ${BACKGROUND_DUE.ageS + 1})
    where project_id = 'cross'`;
  await buildPendingRollups(sql, ['cross'], { due: BACKGROUND_DUE });
  t.same(await lacking(), [], 'once the oldest is old enough it counts them, and empties the list');
  t.same(await splitSince(), [], 'and the split one');
  t.ok(await counted(), "the late day's session facts are counted again");
  t.same(
    await planned(),
    { late: [], rolled: true, entry: true, alone: true },
    'counted again: read from the facts alone',
  );
  await series('counted again');
  await stats('counted again');
  await pages('counted again');
  // A day whose facts are not counted (built before their tables) is read from events.
  await query(sql, 'delete_rollup_set_sessions', [
    'cross',
    lateDay,
    new Date(start + 4 * DAY).toISOString().slice(0, 10),
  ]);
  await stats('a day not counted is read from events');
  await pages('a day not counted');
  const paged = { ...scope, filters: [...scope.filters, f('page', '/p0')] };
  const browsers = await rollupDimensionGroups(sql, paged, 'browser', list);
  await sameAsRaw(t, sql, paged, dimensionSql(sql, 'browser'), list, browsers, 'a page beside both families');
  t.equal(
    await rollupDimensionGroups(sql, { ...scope, filters: [...scope.filters, f('prop:plan', 'pro')] }, 'browser', list),
    null,
    'a filter outside both families',
  );
});

// The statistic block, the chart and the across-projects rows under filters, over several projects, from each
// project's filtered rollups (src/query/rollup/stats.ts rollupFilteredProjectStats, projects.ts): equal to the
// raw path for filters on either family, on both, on a page or an event, on a page beside one family's or
// both, for every selection; a project without events, or without a visitor under the filters, has no row;
// and what the rollups cannot answer (the events metric, an event filter beside both families) is left to
// the raw path.
import t from 'tap';
import {
  buildRollups,
  generate,
  referenceServer,
  rollupScope,
  sameAsRaw,
  send,
  filterOf,
  mostCommon,
} from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Filter } from '../../src/query/params.ts';
import { parseMetricList, readBreakdown } from '../../src/query/breakdown.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { rollupProjectGroups } from '../../src/query/rollup/projects.ts';
import { statsSql } from '../../src/query/stats.ts';
import { SESSION_METRICS } from '../../src/query/rollup/eligible.ts';
import { rollupTimeseriesAgg } from '../../src/query/rollup/timeseries.ts';
import { timeseriesSql } from '../../src/query/timeseries.ts';

const DAY = 86_400_000;
t.setTimeout(600_000);
const {
  s,
  projects: [site, other],
  owner,
  sql,
} = await referenceServer(t, ['site', 'other', 'empty']);
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 6 * DAY;
await send(s, site.secretKey, generate('f', start, 6, 80, 3), owner.cookie);
// The other project's visitors are never in Great Britain: under country=GB it has no row.
await send(
  s,
  other.secretKey,
  generate('g', start, 6, 60, 5).map((e) => ({ ...e, country: null })),
  owner.cookie,
);
await buildRollups(s);

const projects = ['site', 'other', 'empty'];
const f = filterOf;
const top = (column: string) => mostCommon(sql, column);
const answered: Filter[][] = [
  [f('country', 'GB')],
  [f('country', 'GB', true)],
  [f('browser', await top('browser')), f('channel', await top('channel'))],
  [f('page', '/pricing')],
  [f('event', 'signup')],
  [f('page', '/pricing'), f('country', 'GB')],
  [f('page', '/pricing'), f('channel', await top('channel'))],
  [f('page', '/pricing'), f('country', 'GB'), f('channel', await top('channel'))],
];
const list = parseMetricList('visitors,pageviews,sessions,bounce_rate,session_duration,pages_per_session', []);
const scopes = (filters: Filter[]): Scope[] =>
  (['human', 'all'] as const).flatMap((traffic) =>
    [
      [start, today],
      [start + DAY, today + DAY], // through the end of today
    ].map(([from, to]) => ({ ...rollupScope(from!, to!, traffic, 'all', projects), filters })),
  );
const described = (scope: Scope) =>
  `${scope.filters.map((x) => `${x.dimension}=${x.exclude ? '!' : ''}${x.value}`).join(' & ')} ${scope.traffic} ` +
  `${scope.range.from.toISOString().slice(0, 10)}..${scope.range.to.toISOString().slice(0, 10)}`;

t.test('the block and the project rows under filters equal the raw path', async (t) => {
  let rows = 0;
  for (const filters of answered)
    for (const scope of scopes(filters)) {
      const label = described(scope);
      const rolled = await rollupStats(sql, scope);
      t.ok(rolled, `the rollups answer the block: ${label}`);
      t.same(rolled, (await statsSql(sql, scope))[0], `block: ${label}`);
      const want = await sameAsRaw(
        t,
        sql,
        scope,
        sql`e.project_id`,
        list,
        await rollupProjectGroups(sql, scope, list),
        label,
      );
      rows += want.rows.length;
      t.notOk(
        want.rows.some((r) => r.value === 'empty'),
        `${label}: no row for a project without events`,
      );
    }
  t.ok(rows > answered.length * 4, `the reads have rows to compare (${rows})`);
  const gb = scopes([f('country', 'GB')])[0]!;
  const page = await readBreakdown(
    sql,
    gb,
    sql`e.project_id`,
    list,
    0,
    10,
    (await rollupProjectGroups(sql, gb, list))!.grouped,
  );
  t.same(
    page.rows.map((r) => r.value),
    ['site'],
    'under country=GB only the project with such visitors has a row',
  );
});

t.test('the chart under filters equals the raw path, every metric, by day, week and month', async (t) => {
  const metrics = [...SESSION_METRICS];
  let buckets = 0;
  for (const filters of answered)
    for (const scope of scopes(filters).slice(0, 2))
      for (const interval of ['day', 'week', 'month'] as const)
        for (const metric of metrics) {
          const label = `${metric} by ${interval} ${described(scope)}`;
          const rolled = await rollupTimeseriesAgg(sql, scope, metric, interval);
          const want = await timeseriesSql(sql, scope, metric, interval);
          buckets += want.filter((b) => b.value > 0).length;
          if (!rolled) t.fail(`the rollups answer: ${label}`);
          else t.same(await timeseriesSql(sql, scope, metric, interval, rolled.agg), want, label);
        }
  t.ok(buckets > 100, `buckets with a value to compare (${buckets})`);
  const none = { ...scopes([f('country', 'nowhere')])[0]! };
  const rolled = await rollupTimeseriesAgg(sql, none, 'bounce_rate', 'day');
  t.same(
    await timeseriesSql(sql, none, 'bounce_rate', 'day', rolled!.agg),
    await timeseriesSql(sql, none, 'bounce_rate', 'day'),
  );
});

t.test('what the rollups cannot answer is left to the raw path', async (t) => {
  const scope = scopes([f('country', 'GB')])[0]!;
  t.equal(await rollupProjectGroups(sql, scope, parseMetricList('visitors,events', [])), null, 'the events metric');
  const channel = await top('channel');
  const beside = { ...scope, filters: [f('event', 'signup'), f('country', 'GB'), f('channel', channel)] };
  t.equal(await rollupStats(sql, beside), null, 'an event filter beside both families');
  t.equal(await rollupProjectGroups(sql, beside, list), null, 'an event filter beside both families: rows');
  t.equal(await rollupTimeseriesAgg(sql, beside, 'bounce_rate', 'day'), null, "and the chart's session metrics");
});

t.test('through the API', async (t) => {
  const q = new URLSearchParams({ period: '7d', 'filter[country]': '!GB', metrics: 'visitors,bounce_rate' });
  const rows = await s.request('GET', `/v2/breakdown/project?${q}`, owner);
  t.equal(rows.status, 200);
  t.same((rows.body.data as { value: string }[]).map((r) => r.value).sort(), ['other', 'site']);
  const stats = await s.request('GET', `/v2/stats?${q}`, owner);
  t.equal(stats.status, 200);
  const sum = (rows.body.data as { visitors: number }[]).reduce((n, r) => n + r.visitors, 0);
  t.equal(stats.body.data.visitors.value, sum, "the block's visitors are the rows' sum");
});

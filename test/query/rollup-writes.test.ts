// The day rollups kept by the writers (src/db/rollup-apply.ts) equal a rebuild from the events and the raw
// answers, whatever order the events arrive in: shuffled across days and sessions, late into past days,
// backfilled into days already read, in batches that checkpoint halfway through sessions. Retention and
// project deletion leave them exact, and no read writes a rollup row.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, type Sent } from './reference.ts';
import { environments, trafficKinds } from '../../src/query/params.ts';
import type { Scope } from '../../src/query/filters.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { parseMetricList, readBreakdown } from '../../src/query/breakdown.ts';
import { runTimeseries, timeseriesSql } from '../../src/query/timeseries.ts';
import { rollupTimeseriesAgg } from '../../src/query/rollup/timeseries.ts';
import { rollupPageGroups } from '../../src/query/rollup/pages.ts';
import { rollupDimensionGroups } from '../../src/query/rollup/dims.ts';
import { rollupValueGroups } from '../../src/query/rollup/values.ts';
import { markRollupDaysPending, rebuildPendingDays } from '../../src/db/rollup-apply.ts';
import { jobs } from '../../src/jobs/registry.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 } });
t.teardown(() => s.close());
const site = await s.project('shuffled');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 8 * DAY;

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
let seed = 11;
const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), seed / 2_147_483_648);

const UTM = [
  '',
  '',
  '?utm_source=news&utm_medium=email&utm_campaign=launch',
  '?utm_source=ads&utm_term=shoes&utm_content=a',
];
const REFERRERS = [
  null,
  'https://www.google.com/search?q=x',
  'https://news.ycombinator.com/item?id=1',
  'https://blog.example.org/post',
];

/** Sends in a shuffled order, in small batches per header kind, checkpointing after some of them. */
async function sendShuffled(events: Sent[]): Promise<void> {
  const shuffled = [...events];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  for (const group of [
    shuffled.filter((e) => !e.bot && !e.internal),
    shuffled.filter((e) => e.bot),
    shuffled.filter((e) => e.internal),
  ]) {
    for (let i = 0; i < group.length;) {
      const batch = group.slice(i, (i += 1 + Math.floor(rnd() * 60)));
      const res = await s.request('POST', '/v2/ingest', {
        token: site.secretKey,
        headers: {
          'user-agent': batch[0]!.bot ? googlebot : chrome,
          ...(batch[0]!.internal ? { cookie: owner.cookie } : {}),
        },
        body: {
          events: batch.map((e) => ({
            id: e.id,
            name: e.name,
            visitor: e.visitor,
            ts: new Date(e.ts).toISOString(),
            environment: e.environment,
            page: {
              url: `${e.localhost ? 'http://localhost:3000' : 'https://shop.example.com'}${e.path}${UTM[e.ts % UTM.length]}`,
              ...(REFERRERS[e.ts % REFERRERS.length] ? { referrer: REFERRERS[e.ts % REFERRERS.length] } : {}),
            },
            props:
              e.name === 'engagement' ? { timeMs: 1000 + (e.ts % 5000), scrollDepth: e.ts % 100 } : { plan: e.plan },
            context: { ip: e.country === 'GB' ? '81.2.69.142' : '10.1.2.3', userAgent: e.bot ? googlebot : chrome },
          })),
        },
      });
      if (res.status !== 202) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      if (rnd() < 0.3) await s.settle();
    }
  }
  await s.settle();
}

/** Every rollup row of the project as sorted text (float sums rounded, visitor arrays sorted). */
async function snapshot(project: string): Promise<Record<string, string[]>> {
  const rows = async (q: Promise<{ r: string }[]>) => (await q).map((x) => x.r).sort();
  return {
    days: await rows(sql`select concat_ws(' ', day, irregular) as r from rollup_days where project_id = ${project}`),
    totals: await rows(sql`
      select concat_ws(' ', day, sel, visitors, sessions, pageviews, events, bounces, duration_ms) as r
      from rollup_day_totals where project_id = ${project} and (visitors, sessions, pageviews, events, bounces, duration_ms) <> (0, 0, 0, 0, 0, 0)`),
    visitors: await rows(
      sql`select concat_ws(' ', day, visitor_hash, sel_mask) as r from rollup_day_visitors where project_id = ${project}`,
    ),
    pages: await rows(sql`
      select concat_ws(' ', day, sel, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews,
        round(time_sum::numeric, 3), time_count, round(scroll_sum::numeric, 3), scroll_count) as r
      from rollup_day_pages where project_id = ${project}`),
    pageVisitors: await rows(sql`
      select concat_ws(' ', day, page, visitor_hash, sel_mask) as r from rollup_day_page_visitors where project_id = ${project}`),
    dims: await rows(sql`
      select concat_ws(' ', d.day, s.key, d.tm, d.em, d.pageviews, d.events, (select array_agg(x order by x) from unnest(d.visitors) x)) as r
      from rollup_day_dims d join rollup_dim_sets s on s.project_id = d.project_id and s.id = d.set_id where d.project_id = ${project}`),
    props: await rows(sql`
      select concat_ws(' ', day, name, tm, em, coalesce(key, '<base>'), value, pageviews, events,
        (select array_agg(x order by x) from unnest(visitors) x)) as r
      from rollup_day_props where project_id = ${project}`),
    values: await rows(sql`
      select concat_ws(' ', day, dim, coalesce(value, '<null>'), tm, em, pageviews, events,
        (select array_agg(x order by x) from unnest(visitors) x)) as r
      from rollup_day_values where project_id = ${project}`),
    contrib: await rows(sql`
      select concat_ws(' ', day, session_id, label, sessions, pageviews, events, bounces, duration_ms) as r
      from rollup_session_contrib where project_id = ${project}`),
  };
}

const scopeOf = (from: number, to: number, traffic: Scope['traffic'], environment: Scope['environment']): Scope => ({
  projectIds: ['shuffled'],
  range: { from: new Date(from), to: new Date(to) },
  traffic,
  environment,
  filters: [],
});

/** Stats, pages and a dimension breakdown from the rollups against the raw path, over two ranges. */
async function compareReads(t: Test, label: string, live = true): Promise<void> {
  const pageMetrics = parseMetricList('visitors,pageviews,sessions,bounce_rate,pages_per_session,session_duration', []);
  const dimMetrics = parseMetricList('visitors,pageviews,events', []);
  // Ranges ending inside today read today's rows, unless an event of today lies past their end.
  const now = Date.now();
  for (const [from, to] of [
    [start, today],
    [start + 2 * DAY, start + 5 * DAY],
    ...(live
      ? [
          [today, now],
          [start, now - 60_000],
        ]
      : []),
  ] as const) {
    for (const traffic of trafficKinds) {
      for (const environment of environments) {
        const scope = scopeOf(from, to, traffic, environment);
        const name = `${label} ${traffic}/${environment} ${((to - from) / DAY).toFixed(2)}d`;
        const rolled = await rollupStats(sql, scope);
        t.ok(rolled, `the rollups answer ${name}`);
        t.same(rolled, (await statsSql(sql, scope))[0], `stats ${name}`);
        t.ok(await rollupTimeseriesAgg(sql, scope, 'visitors', 'day'), `the rollups answer the timeseries ${name}`);
        const pages = await rollupPageGroups(sql, scope, pageMetrics);
        const got = await readBreakdown(sql, scope, sql`e.path`, pageMetrics, 0, 100, pages!.grouped);
        t.same(got, await readBreakdown(sql, scope, sql`e.path`, pageMetrics, 0, 100), `pages ${name}`);
        for (const metric of ['visitors', 'sessions', 'bounce_rate', 'pageviews'])
          t.same(
            await runTimeseries(sql, scope, metric, 'day'),
            await timeseriesSql(sql, scope, metric, 'day'),
            `timeseries ${metric} ${name}`,
          );
        for (const dimension of ['referrer_domain', 'channel', 'utm_source', 'utm_campaign', 'referrer']) {
          const values = await rollupValueGroups(sql, scope, dimension, dimMetrics);
          const key = sql`e.${sql(dimension)}::text`;
          t.same(
            await readBreakdown(sql, scope, key, dimMetrics, 0, 100, values!.grouped),
            await readBreakdown(sql, scope, key, dimMetrics, 0, 100),
            `${dimension} ${name}`,
          );
        }
        const dims = await rollupDimensionGroups(sql, scope, 'country', dimMetrics);
        const countries = await readBreakdown(sql, scope, sql`e.country::text`, dimMetrics, 0, 100, dims!.grouped);
        t.same(
          countries,
          await readBreakdown(sql, scope, sql`e.country::text`, dimMetrics, 0, 100),
          `countries ${name}`,
        );
      }
    }
  }
}

/** The kept rows against a rebuild of every day from the events. */
async function compareWithRebuild(t: Test, label: string): Promise<void> {
  const kept = await snapshot('shuffled');
  const [row]: [{ days: string[] }?] = await sql`
    select coalesce(array_agg(distinct to_char(day, 'YYYY-MM-DD')), '{}') as days from rollup_days where project_id = 'shuffled'`;
  await markRollupDaysPending(sql, 'shuffled', row!.days);
  await rebuildPendingDays(sql, 'shuffled');
  const rebuilt = await snapshot('shuffled');
  for (const table of Object.keys(kept))
    t.same(kept[table], rebuilt[table], `${label}: ${table} as a rebuild makes them`);
}

// Today's events up to a minute ago.
const todays = generate('wt', today, 1, 30, 5).filter((e) => e.ts < Date.now() - 60_000);
const events = generate('w', start, 8, 90, 3).concat(todays);
const firstHalf = events.filter((_, i) => i % 2 === 0);
const secondHalf = events.filter((_, i) => i % 2 === 1);

t.test('shuffled events, sessions split across checkpoints', async (t) => {
  await sendShuffled(firstHalf);
  const [n]: [{ n: number }?] = await sql`select count(*)::int as n from rollup_days where project_id = 'shuffled'`;
  t.ok(n!.n >= 7, 'the days with events have rollups before any read');
  await compareReads(t, 'first half');
});

t.test('backfilled into days already read, then compared with a rebuild', async (t) => {
  const before = await snapshot('shuffled');
  const readOnly = await snapshot('shuffled');
  t.same(readOnly, before, 'reads wrote no rollup row');
  await sendShuffled(secondHalf);
  await compareReads(t, 'backfilled');
  await compareWithRebuild(t, 'backfilled');
});

t.test('an event of today past the end of a range sends the read to events', async (t) => {
  const ahead = { ...generate('wf', today, 1, 1, 9)[0]!, id: 'ahead', ts: Date.now() + 180_000 };
  if (Math.floor(ahead.ts / DAY) * DAY !== today) return void t.pass('too close to midnight');
  await sendShuffled([ahead]);
  const scope = scopeOf(today, Date.now(), 'all', 'all');
  t.equal(await rollupStats(sql, scope), null, 'the rollups decline');
  t.ok(await rollupStats(sql, scopeOf(today, today + DAY, 'all', 'all')), 'the whole of today they answer');
  t.same(
    await rollupStats(sql, scopeOf(today, today + DAY, 'all', 'all')),
    (await statsSql(sql, scopeOf(today, today + DAY, 'all', 'all')))[0],
    'equal to the raw path',
  );
});

t.test('retention cuts inside a day: the writer rebuilds the day, the rest stays', async (t) => {
  const keepDays = 5;
  await sql`update projects set retention_days = ${keepDays} where id = 'shuffled'`;
  const done = await jobs.retention!.run(s.loupe.services, new Date());
  t.notOk(done.failedProjects, `no project failed: ${JSON.stringify(done)}`);
  const [left]: [{ n: number }?] = await sql`
    select count(*)::int as n from rollup_pending_days where project_id = 'shuffled'`;
  t.equal(left!.n, 0, 'the retention job rebuilt the days it cut');
  const cutoff = Date.now() - keepDays * DAY;
  const [old]: [{ n: number }?] = await sql`
    select count(*)::int as n from rollup_day_totals where project_id = 'shuffled' and day < ${new Date(cutoff).toISOString().slice(0, 10)}::date`;
  t.equal(old!.n, 0, 'no rollup row before the cutoff day');
  await compareReads(t, 'after retention', false); // the event ahead keeps ranges ending now raw
  await compareWithRebuild(t, 'after retention');
});

t.test('project deletion leaves no rollup row', async (t) => {
  const res = await s.request('DELETE', '/v2/projects/shuffled', owner);
  t.equal(res.status, 200);
  const after = await snapshot('shuffled');
  for (const [table, rows] of Object.entries(after)) t.same(rows, [], `${table} empty`);
  const [left]: [{ n: number }?] = await sql`
    select (select count(*) from rollup_session_page_contrib where project_id = 'shuffled')
      + (select count(*) from rollup_pending_days where project_id = 'shuffled')
      + (select count(*) from rollup_dim_sets where project_id = 'shuffled')::int as n`;
  t.equal(Number(left!.n), 0, 'nor page contributions, pending days or interned sets');
});

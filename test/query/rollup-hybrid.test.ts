// Reads over ranges the rollups hold only in part (src/query/rollup/segments.ts): a pending yesterday
// after a late event, an unbuilt day in the middle, a range reaching into today, non-midnight bounds,
// sessions over the seam between a built and a raw day. Every answer (stats, timeseries, pages, the
// across-projects rows) equals the raw path.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, send, type Sent, buildRollups, rollupScope, samePages } from './reference.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { runTimeseries, timeseriesSql } from '../../src/query/timeseries.ts';
import { planRange } from '../../src/query/rollup/segments.ts';
import { rollupProjectGroups } from '../../src/query/rollup/projects.ts';
import { readBreakdown, parseMetricList } from '../../src/query/breakdown.ts';

const DAY = 86_400_000;
const MIN = 60_000;
t.setTimeout(600_000);
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const site = await s.project('site');
const other = await s.project('other');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const start = today - 8 * DAY;
// Up to now: today has events too (generate spreads over whole days; keep what is not in the future).
const events = generate('h', start, 9, 80, 11).filter((e) => e.ts < now - MIN);
// A range that ends at today's last event leaves that event after it: today's part is read from events
// (a range up to now, with no event after it, takes today from its rollup).
const lastToday = events.reduce((m, e) => (e.ts >= today ? Math.max(m, e.ts) : m), 0);
await send(s, site.secretKey, events, owner.cookie);
await send(
  s,
  other.secretKey,
  generate('ho', start, 9, 30, 3).filter((e) => e.ts < now - MIN),
  owner.cookie,
);
const build = () => buildRollups(s);
await build();

const scopeOf = rollupScope;
const selections = [
  ['human', 'production'],
  ['all', 'all'],
  ['bots', 'preview'],
  ['internal', 'all'],
] as const;
const ranges = (): [string, number, number][] => [
  ['whole days', start, today],
  ['into today', start + 2 * DAY, lastToday || now],
  ['up to now', start + 2 * DAY, now],
  ['to tomorrow', today - 3 * DAY, today + DAY],
  ['non-midnight bounds', start + 2 * DAY + 5 * 3_600_000 + 7 * MIN, today - DAY + 13 * 3_600_000],
  ['from midday to midnight', start + DAY + 12 * 3_600_000, today - 2 * DAY],
];
const metrics = ['visitors', 'pageviews', 'events', 'sessions', 'bounce_rate', 'session_duration', 'pages_per_session'];

async function compareAll(t: Test, when: string) {
  for (const [name, from, to] of ranges()) {
    for (const [traffic, environment] of selections) {
      for (const projectIds of [['site'], ['site', 'other']]) {
        const scope = scopeOf(from, to, traffic, environment, projectIds);
        const label = `${when}: ${name} ${traffic}/${environment} ${projectIds.length}p`;
        const got = await rollupStats(sql, scope);
        t.ok(got, `the rollups answer (${label})`);
        t.same(got, (await statsSql(sql, scope))[0], `stats ${label}`);
      }
      const both = scopeOf(from, to, traffic, environment, ['site', 'other']);
      const list = parseMetricList(metrics.join(','), []);
      const projects = await rollupProjectGroups(sql, both, list);
      t.ok(projects, `the project rows answer (${when}: ${name} ${traffic}/${environment})`);
      t.same(
        await readBreakdown(sql, both, sql`e.project_id`, list, 0, 10, projects!.grouped),
        await readBreakdown(sql, both, sql`e.project_id`, list, 0, 10),
        `project rows ${when}: ${name} ${traffic}/${environment}`,
      );
      await samePages(t, sql, scopeOf(from, to, traffic, environment), `${when}: ${name} ${traffic}/${environment}`);
      const scope = scopeOf(from, to, traffic, environment, ['site', 'other']);
      for (const interval of ['day', 'week', 'month'] as const)
        for (const metric of metrics)
          t.same(
            await runTimeseries(sql, scope, metric, interval),
            await timeseriesSql(sql, scope, metric, interval),
            `${when}: ${name} ${traffic}/${environment} ${metric} by ${interval}`,
          );
    }
  }
}

const human = events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!;
const at = (ts: number, id: string, session: string, visitor = 'hlate'): Sent => ({
  ...human,
  id,
  ts,
  session,
  visitor,
});

t.test('every day built: ranges into today and with partial days', async (t) => {
  if (lastToday > 0) {
    const plan = await planRange(sql, scopeOf(start + 2 * DAY, lastToday, 'all', 'all'));
    t.equal(plan!.rolled.length, 6, 'the whole closed days come from the rollups');
    t.equal(plan!.raw.length, 1, 'today, with an event after the range, from events');
  }
  await compareAll(t, 'built');
});

t.test('a pending yesterday, a session over the seam, a session across midnight', async (t) => {
  // A session with events on the day before yesterday (built) gets a late event yesterday.
  const before = events.find((e) => e.ts >= today - 2 * DAY && e.ts < today - DAY && e.name === 'pageview')!;
  const late = [
    { ...before, id: 'hl1', ts: today - DAY + 2 * 3_600_000 },
    at(today - DAY - 3 * MIN, 'hl2', 'hmid', 'hmid'),
    at(today - DAY + 4 * MIN, 'hl3', 'hmid', 'hmid'),
    at(today - 2 * MIN, 'hl4', 'htoday', 'htoday'),
    at(Math.min(today + 3 * MIN, now - MIN), 'hl5', 'htoday', 'htoday'),
    at(today - DAY + 5 * 3_600_000, 'hl6', 'hnew', 'hnew'),
  ];
  await send(s, site.secretKey, late, owner.cookie);
  await s.settle();
  const plan = await planRange(sql, scopeOf(start, today, 'all', 'all'));
  t.notOk(plan!.rolled.includes(new Date(today - DAY).toISOString().slice(0, 10)), 'yesterday is pending');
  t.ok(plan!.raw.length > 0, 'read from events');
  await compareAll(t, 'pending');
});

t.test('an unbuilt day in the middle', async (t) => {
  const middle = new Date(start + 4 * DAY).toISOString().slice(0, 10);
  await sql`delete from rollup_days where project_id = 'site' and day = ${middle}::date`;
  await sql`delete from rollup_day_totals where project_id = 'site' and day = ${middle}::date`;
  await sql`delete from rollup_day_visitors where project_id = 'site' and day = ${middle}::date`;
  const plan = await planRange(sql, scopeOf(start, today, 'all', 'all'));
  t.notOk(plan!.rolled.includes(middle), 'the unbuilt day is read from events');
  await compareAll(t, 'unbuilt');
  await build();
  await compareAll(t, 'rebuilt');
});

// The background rollup builder as the server runs it (src/query/rollup/builder.ts): closed days are
// built without any read asking and the dashboard's kept values counted after them (warm.ts), a late
// event is counted at once and its day rebuilt once its mark is due, and the rollups then equal events.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, send, type Sent } from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import { warmKeptValues } from '../../src/query/rollup/warm.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { buildDay } from '../../src/query/rollup/builder.ts';

const DAY = 86_400_000;
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 100 });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 4 * DAY;
const events = generate('b', start, 4, 40, 3);
const scope: Scope = {
  projectIds: ['site'],
  range: { from: new Date(start), to: new Date(today) },
  traffic: 'all',
  environment: 'all',
  filters: [],
};

/** Polls until the rollups answer for the range (at most 60 s). */
async function answered(): Promise<boolean> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if ((await rollupStats(sql, scope)) !== null) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

t.test('closed days are built without a read asking', async (t) => {
  await send(s, site.secretKey, events, owner.cookie);
  await s.settle();
  t.ok(await answered(), 'the rollups answer for the range');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'equal to events');
});

const marks = async () =>
  (await sql<{ n: number }[]>`select count(*)::int as n from rollup_stale_days where project_id = 'site'`)[0]!.n;

/** Makes every mark due for the builder (10 minutes old) and waits until it has rebuilt their days. */
async function rebuilt(): Promise<number> {
  await sql`update rollup_stale_days set marked_at = now() - interval '11 minutes' where project_id = 'site'`;
  const until = Date.now() + 60_000;
  while (Date.now() < until && (await marks()) > 0) await new Promise((r) => setTimeout(r, 100));
  return marks();
}

t.test('the kept values of the default reads are counted after a build', async (t) => {
  // Batches that arrived after their day was built left marks of late events: rebuilt, no day has any.
  t.equal(await rebuilt(), 0, 'every day rebuilt');
  const until = Date.now() + 60_000;
  const kinds = async () =>
    (
      await sql<{ kind: string }[]>`
        select distinct kind from rollup_range_values where project_id = 'site' and to_day = ${new Date(today)}::date`
    ).map((r) => r.kind);
  // The retention grid's ranges run through today, which the builder takes 5 minutes after midnight.
  const withToday = Date.now() - today > 6 * 60_000;
  const last = withToday ? 'retention:month' : 'dim_visitors:browser:[]';
  while (Date.now() < until && !(await kinds()).includes(last)) await new Promise((r) => setTimeout(r, 100));
  const got = await kinds();
  for (const kind of ['visitors', 'page_visitors', 'entry:entry_page', 'entry:exit_page', 'event_visitors:[]'])
    t.ok(got.includes(kind), `${kind} kept`);
  t.ok(
    got.includes('acq_visitors:channel:[]') && got.includes('dim_visitors:country:[]'),
    'and the panels’ first tabs',
  );
  if (withToday) t.ok(got.includes('retention:week'), "and the retention grid's cells over the closed days");
});

t.test('a count of the kept values cut by its deadline resumes where it stopped', async (t) => {
  await sql`delete from rollup_range_values where project_id = 'site'`;
  const kept = async () =>
    (await sql<{ n: number }[]>`select count(*)::int as n from rollup_range_values where project_id = 'site'`)[0]!.n;
  // A deadline already passed: every call counts one read and says where to go on.
  t.equal(await warmKeptValues(sql, 'site', { deadline: 0, from: 0 }), 1, 'one read counted');
  t.ok((await kept()) > 0, 'and its value kept');
  const steps: number[] = [];
  let from: number | null = 1;
  while (from !== null && steps.length < 100) {
    from = await warmKeptValues(sql, 'site', { deadline: 0, from });
    if (from !== null) steps.push(from);
  }
  t.equal(from, null, 'the list is through');
  t.same(
    steps,
    steps.map((_, i) => i + 2),
    'one read a call, in order',
  );
  const kinds = (
    await sql<{ kind: string }[]>`select distinct kind from rollup_range_values where project_id = 'site'`
  ).map((r) => r.kind);
  t.ok(kinds.includes('entry:exit_page') && kinds.includes('dim_visitors:browser:[]'), 'the later reads counted too');
});

t.test('a late event is counted at once, and its day rebuilt once its mark is due', async (t) => {
  const late: Sent = { ...events[0]!, id: 'late', ts: start + DAY + 3_600_000, visitor: 'blate', session: 'blate-s' };
  await send(s, site.secretKey, [late], owner.cookie);
  await s.settle();
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'the rollups add it');
  t.ok((await marks()) > 0, 'its mark waits');
  t.equal(await rebuilt(), 0, 'rebuilt once due');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'and the day counts it');
});

t.test('a partition of events written in bulk is analyzed before a day of it is built', async (t) => {
  // Rows written around ingest (a restore, a bulk copy) leave the partition's statistics behind: planned
  // as a nearly empty table, the page build joined them in nested loops (a minute for 20,000 events).
  await s.project('bulk');
  const day = new Date(today - 10 * DAY).toISOString().slice(0, 10);
  await sql`insert into events (project_id, ts, id, name, visitor_id, session_id, path)
    select 'bulk', ${day}::date::timestamptz + (i || ' s')::interval, 'bulk' || i, 'pageview', 'bv' || i, 'bs' || i,
      '/b/' || (i % 50)
    from generate_series(1, 5000) i`;
  const [{ partition }] = await sql<{ partition: string }[]>`
    select tableoid::regclass::text as partition from events where project_id = 'bulk' limit 1`;
  const lag = async () =>
    (
      await sql<{ n: number }[]>`
        select coalesce(max(n_mod_since_analyze), 0)::int as n from pg_stat_user_tables
        where relid = ${partition}::regclass`
    )[0]!.n;
  // The inserting session reports its counts within a second or so.
  const until = Date.now() + 15_000;
  while ((await lag()) < 5000 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
  t.ok((await lag()) >= 5000, 'the partition lags the rows written into it');
  const [{ before }] = await sql<{ before: Date }[]>`select now() as before`;
  t.equal(await buildDay(sql, 'bulk', day), 'built');
  const [stats] = await sql<{ analyzed: Date | null }[]>`
    select greatest(last_analyze, last_autoanalyze) as analyzed from pg_stat_user_tables where relid = ${partition}::regclass`;
  t.ok(stats!.analyzed && stats!.analyzed >= before, 'analyzed before the build');
  t.ok((await lag()) < 1000, 'its statistics are current');
  const bulk = { ...scope, projectIds: ['bulk'], range: { from: new Date(`${day}T00:00:00Z`), to: new Date(today) } };
  t.same(await rollupStats(sql, bulk), (await statsSql(sql, bulk))[0], 'the day built equals its events');
});

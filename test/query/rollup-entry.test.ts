// Entry and exit page breakdowns from the entry day rollups (src/query/rollup/entry.ts) equal to the raw
// path (the sessions row's page over events) for every metric they serve, several selections and ranges;
// after a session continued past midnight into today, a late event that changes a session's entry page,
// a late event read before its fold that moves a page another session of its visitor still holds,
// retention and project deletion.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, send, buildRollups, rollupScope, sameAsRaw } from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import { dimensionKey, parseMetricList, readBreakdown } from '../../src/query/breakdown.ts';
import { rollupEntryGroups } from '../../src/query/rollup/entry.ts';
import { jobs } from '../../src/jobs/registry.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
t.setTimeout(600_000);
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - 10 * DAY;
await send(s, site.secretKey, generate('n', start, 10, 160, 11), owner.cookie);
const build = () => buildRollups(s);
await build();

const scopeOf = rollupScope;
const ranges: [number, number][] = [
  [start, today],
  [start + 3 * DAY, start + 7 * DAY],
  [start + 5 * DAY, start + 6 * DAY],
  [start - 4 * DAY, today],
];
const selections = [
  ['human', 'production'],
  ['all', 'all'],
  ['internal', 'all'],
  ['bots', 'preview'],
] as const;
const all = parseMetricList('visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session', []);

/** Compares both dimensions over every range and selection; returns how many reads had several rows. */
async function compareAll(t: Test, label: string, metricLists = [all, parseMetricList('visitors,pageviews', [])]) {
  let several = 0;
  for (const [from, to] of ranges)
    for (const [traffic, environment] of selections)
      for (const dimension of ['entry_page', 'exit_page'])
        for (const list of metricLists) {
          const scope = scopeOf(from, to, traffic, environment);
          const rolled = await rollupEntryGroups(sql, scope, dimension, list);
          const name = `${label} ${dimension} ${traffic}/${environment} ${(to - from) / DAY}d ${list.length} metrics`;
          const key = dimensionKey(sql, dimension);
          const want = await sameAsRaw(t, sql, scope, key, list, rolled, name);
          // The second read takes the stored visitors per page.
          const again = await rollupEntryGroups(sql, scope, dimension, list);
          await sameAsRaw(t, sql, scope, key, list, again, `${name} (stored visitors)`);
          if (want.rows.length > 1) several++;
        }
  return several;
}

/** One read from the rollups (and events for what they do not hold) against the raw path. */
async function compareOne(t: Test, scope: Scope, dimension: string, label: string) {
  await sameAsRaw(
    t,
    sql,
    scope,
    dimensionKey(sql, dimension),
    all,
    await rollupEntryGroups(sql, scope, dimension, all),
    label,
  );
}

t.test('equal to the raw path for every selection and range', async (t) => {
  const [split]: [{ n: number }?] =
    await sql`select count(distinct session_id)::int as n from rollup_day_split_sessions where project_id = 'site'`;
  t.ok(split!.n > 0, `${split!.n} sessions cross midnight: the split part is exercised`);
  const several = await compareAll(t, 'seeded');
  t.ok(several > 40, `reads with several rows to compare: ${several}`);
});

t.test('the breakdown route answers from the rollups with the raw rows', async (t) => {
  for (const dimension of ['entry_page', 'exit_page']) {
    const scope = scopeOf(start, today, 'human', 'production');
    const metrics = 'visitors,sessions,bounce_rate,session_duration';
    const list = parseMetricList(metrics, []);
    t.ok(await rollupEntryGroups(sql, scope, dimension, list), 'the rollups can answer');
    const q = new URLSearchParams({
      from: new Date(start).toISOString(),
      to: new Date(today).toISOString(),
      metrics,
      limit: '50',
    });
    const res = await s.request('GET', `/v2/projects/site/breakdown/${dimension}?${q}`, owner);
    t.equal(res.status, 200);
    const want = await readBreakdown(sql, scope, dimensionKey(sql, dimension), list, 0, 50);
    t.same(res.body.data, want.rows, `${dimension} over HTTP`);
    t.equal(res.body.total, want.total);
  }
});

t.test('a session continued past midnight into today, and a late event that moves an entry page', async (t) => {
  // The last session that reaches 23:30 yesterday, continued just after midnight: its exit page is
  // today's, for reads over yesterday too (the raw path reads the sessions row).
  const [last]: [{ id: string; visitor_id: string }?] = await sql`
    select e.session_id as id, e.visitor_id from events e
    where e.project_id = 'site' and e.ts >= ${new Date(today - 1_800_000)} and e.ts < ${new Date(today)}
      and e.name = 'pageview' and e.session_id <> ''
    order by e.ts desc limit 1`;
  t.ok(last, 'a session active before midnight');
  const wire = (id: string, ts: number, path: string) => ({
    id,
    name: 'pageview',
    visitor: last!.visitor_id,
    ts: new Date(ts).toISOString(),
    environment: 'production',
    page: { url: `https://shop.example.com${path}` },
    context: { ip: '10.1.2.3', userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0 Safari/537.36' },
  });
  const [before]: [{ exit_page: string }?] =
    await sql`select exit_page from sessions where project_id = 'site' and id = ${last!.id}`;
  const after = Math.min(Date.now() - 1000, today + 60_000);
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { events: [wire('late-today', after, '/after-midnight')] },
  });
  t.equal(res.status, 202);
  await s.settle();
  const [now]: [{ id: string; exit_page: string }?] =
    await sql`select id, exit_page from sessions where project_id = 'site' and id = ${last!.id}`;
  if (now?.exit_page !== '/after-midnight')
    t.comment(`the event started another session (exit page ${now?.exit_page}, before ${before?.exit_page})`);
  const scope = scopeOf(start, today, 'all', 'all');
  // Yesterday is pending meanwhile: its sessions are recomputed from their events beside the other days' rows.
  for (const dimension of ['entry_page', 'exit_page'])
    await compareOne(t, scope, dimension, `${dimension}, yesterday pending`);
  await build();
  // A pageview just before a session's first one, on a past day: its entry page changes. Once for a
  // session within its day, once for one that crosses midnight (its other day lists it as split and is
  // not rebuilt: a read over that day alone must see the new entry page).
  const within = await sql<{ id: string; visitor_id: string; started_at: Date; last_activity: Date }[]>`
    select id, visitor_id, started_at, last_activity from sessions
    where project_id = 'site' and started_at >= ${new Date(start + 7 * DAY + 3_600_000)} and last_activity < ${new Date(start + 8 * DAY)}
      and entry_page is not null
    order by started_at limit 1`;
  const crossing = await sql<{ id: string; visitor_id: string; started_at: Date; last_activity: Date }[]>`
    select id, visitor_id, started_at, last_activity from sessions
    where project_id = 'site' and started_at >= ${new Date(start + 2 * DAY)} and last_activity < ${new Date(start + 6 * DAY)}
      and (started_at at time zone 'UTC')::date <> (last_activity at time zone 'UTC')::date and entry_page is not null
      and started_at - interval '1 minute' >= date_trunc('day', started_at at time zone 'UTC') at time zone 'UTC'
    order by started_at limit 1`;
  t.ok(within.length === 1 && crossing.length === 1, 'a session within its day and one across midnight');
  const moved = [...within, ...crossing];
  // The crossing session's last day alone, read (and its visitors per page stored) before its entry moves.
  const lastDay = Math.floor(crossing[0]!.last_activity.getTime() / DAY) * DAY;
  const alone = scopeOf(lastDay, lastDay + DAY, 'all', 'all');
  t.ok(await rollupEntryGroups(sql, alone, 'entry_page', all), 'the last day is read before');
  const seqOf = async () =>
    (
      await sql<
        { seq: string }[]
      >`select build_seq::text as seq from rollup_days where project_id = 'site' and day = ${iso(lastDay)}::date`
    )[0]!.seq;
  const seqBefore = await seqOf();
  const lateRes = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: {
      events: moved.map((x, i) => ({
        ...wire(`late-entry${i}`, x.started_at.getTime() - 60_000, `/landing-late${i}`),
        visitor: x.visitor_id,
      })),
    },
  });
  t.equal(lateRes.status, 202);
  await build();
  const entries = await sql<{ id: string; entry_page: string }[]>`
    select id, entry_page from sessions where project_id = 'site' and id = any(${moved.map((x) => x.id)})`;
  t.same(
    entries.map((x) => x.entry_page).sort(),
    ['/landing-late0', '/landing-late1'],
    'both sessions now enter on the late pages',
  );
  t.equal(await seqOf(), seqBefore, 'the last day was not rebuilt: its stored visitors are refused by their digest');
  await compareOne(t, alone, 'entry_page', 'the last day alone, after the entry page moved');
  ranges.push([lastDay, lastDay + DAY]);
  await compareAll(t, 'after late events', [all]);
});

t.test('a late event moves a page that a split session of the same visitor still holds', async (t) => {
  // One visitor, two sessions leaving on /held: one within its day (listed), one over midnight (split).
  // A late pageview moves the first one's exit page; read while its mark stands, /held keeps the visitor.
  const [HOUR, MIN] = [3_600_000, 60_000];
  const day = today - 2 * DAY;
  const pageview = (id: string, session: string, ts: number, path: string) => ({
    id,
    name: 'pageview',
    visitor: 'held-visitor',
    session,
    ts: new Date(ts).toISOString(),
    environment: 'production',
    page: { url: `https://shop.example.com${path}` },
    context: { ip: '10.1.2.3', userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0 Safari/537.36' },
  });
  const ingest = async (events: unknown[]) => {
    const res = await s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events } });
    t.equal(res.status, 202);
    await s.settle();
  };
  await ingest([
    pageview('held-1', 'held-within', day + 10 * HOUR, '/held'),
    pageview('held-2', 'held-over', day + DAY - 10 * MIN, '/held'),
    pageview('held-3', 'held-over', day + DAY + 10 * MIN, '/held'),
  ]);
  await build();
  const scope = scopeOf(start, today, 'all', 'all');
  await compareOne(t, scope, 'exit_page', 'exit page before the late event (its visitors per page kept)');
  await ingest([pageview('held-4', 'held-within', day + 10 * HOUR + 5 * MIN, '/moved-late')]);
  const [marks] = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_stale_days
    where project_id = 'site' and day = ${iso(day)}::date and event_id is not null`;
  t.ok(marks!.n > 0, 'the late event is marked, not yet folded');
  const [moved] = await sql<{ exit_page: string }[]>`
    select s.exit_page from sessions s join events e on e.project_id = s.project_id and e.session_id = s.id
    where s.project_id = 'site' and e.id = 'held-4'`;
  t.equal(moved!.exit_page, '/moved-late', 'the session within its day leaves on the late page');
  for (const [traffic, environment] of [
    ['all', 'all'],
    ['human', 'production'],
  ] as const)
    for (const dimension of ['entry_page', 'exit_page'])
      await compareOne(
        t,
        scopeOf(start, today, traffic, environment),
        dimension,
        `${dimension} ${traffic}/${environment}: the split session still holds the visitor on /held`,
      );
});

t.test('what the rollups do not answer', async (t) => {
  const scope = scopeOf(start, today, 'human', 'production');
  t.equal(
    await rollupEntryGroups(
      sql,
      { ...scope, filters: [{ dimension: 'page', value: '/a', exclude: false }] },
      'entry_page',
      all,
    ),
    null,
    'a filter on a dimension the sets do not keep (under one they keep: rollup-cross.test.ts)',
  );
  t.equal(await rollupEntryGroups(sql, scope, 'entry_page', parseMetricList('time_on_page', [])), null, 'time on page');
  t.equal(await rollupEntryGroups(sql, scope, 'page', all), null, 'another dimension');
  t.equal(
    await rollupEntryGroups(sql, scopeOf(start + DAY / 2, start + DAY, 'all', 'all'), 'entry_page', all),
    null,
    'no whole day in the range',
  );
});

t.test('ranges the rollups hold in part: partial days and today read from events beside them', async (t) => {
  const now = Date.now();
  const cases: [number, number, string][] = [
    [start + DAY / 2, today, 'from noon'],
    [start + 2 * DAY, start + 6 * DAY + 3_600_000, 'to 01:00'],
    [start + 3 * DAY + 7_200_000, now, 'from 02:00 into today'],
    [start, today + DAY, 'to tomorrow'],
  ];
  for (const [from, to, label] of cases)
    for (const [traffic, environment] of selections)
      for (const dimension of ['entry_page', 'exit_page'])
        await compareOne(
          t,
          scopeOf(from, to, traffic, environment),
          dimension,
          `${dimension} ${label} ${traffic}/${environment}`,
        );
});

t.test('retention and deletion drop the rows', async (t) => {
  await sql`update projects set retention_days = 6 where id = 'site'`;
  const result = await jobs.retention!.run(s.loupe.services, new Date());
  t.ok(Number(result.events) > 0, `the job deleted events (${result.events})`);
  // The days that lost events are pending: read from events beside the days the job did not touch.
  await compareOne(t, scopeOf(start, today, 'all', 'all'), 'entry_page', 'entry_page, days pending after retention');
  await build();
  const [old]: [{ n: number }?] = await sql`
    select count(*)::int as n from rollup_day_entry where project_id = 'site' and day < ${new Date(today - 6 * DAY)}::date`;
  t.equal(old!.n, 0, 'no rows before the retention cut');
  await compareAll(t, 'after retention', [all]);
  t.equal((await s.request('DELETE', '/v2/projects/site', owner)).status, 200);
  const [left]: [{ n: number }?] = await sql`select count(*)::int as n from rollup_day_entry where project_id = 'site'`;
  t.equal(left!.n, 0, 'nothing left after deletion');
});

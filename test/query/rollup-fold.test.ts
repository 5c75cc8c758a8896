// A built day's marks folded into its rows (src/query/rollup/fold.ts) leave every rollup table as a build
// of the day from all its events would: after late events that turn a bounce into a visit, move a
// session's entry and exit pages, report time on page and scroll depth, add a known and a new visitor, a
// bot, a preview event in a production session, referrers, UTM tags and props, and stretch a session over
// midnight; and the same for today's own new events. Reads over the folded days equal the raw path. A day
// marked as a whole is built, not folded.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, type Sent, buildRollups, rollupScope, sameAsRaw, samePages } from './reference.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { rollupEntryGroups } from '../../src/query/rollup/entry.ts';
import { rollupDimensionGroups } from '../../src/query/rollup/dims.ts';
import { rollupPropGroups } from '../../src/query/rollup/props.ts';
import { dimensionKey, parseMetricList } from '../../src/query/breakdown.ts';
import { buildDay } from '../../src/query/rollup/builder.ts';
import { foldDay } from '../../src/query/rollup/fold.ts';

const DAY = 86_400_000;
const MIN = 60_000;
const HOUR = 3_600_000;
t.setTimeout(600_000);
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const site = await s.project('site');
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const start = today - 6 * DAY;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const yesterday = dayOf(today - DAY);
const events = generate('f', start, 7, 70, 11).filter((e) => e.ts < now - 10 * MIN);
await (await import('./reference.ts')).send(s, site.secretKey, events, owner.cookie);
await buildRollups(s);

type Late = Partial<Sent> & { props?: Record<string, unknown>; referrer?: string; query?: string; bot?: boolean };
let n = 0;
const human = events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!;

/** Sends events through ingest, one a request (each flush marks them one by one). */
async function send(list: Late[]) {
  for (const e of list) {
    const at = { ...human, id: `fold${++n}`, session: e.visitor ?? human.session, ...e };
    const res = await s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      headers: {
        'user-agent': e.bot
          ? 'Googlebot/2.1 (+http://www.google.com/bot.html)'
          : 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      },
      body: {
        events: [
          {
            id: at.id,
            name: at.name,
            visitor: at.visitor,
            session: at.session,
            ts: new Date(at.ts).toISOString(),
            environment: at.environment,
            page: { url: `https://shop.example.com${at.path}${e.query ?? ''}`, referrer: e.referrer ?? null },
            props: e.props ?? { plan: at.plan },
            context: { ip: at.country === 'GB' ? '81.2.69.142' : '10.1.2.3' },
          },
        ],
      },
    });
    if (res.status !== 202) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await s.settle();
}

const TABLES: [string, string][] = [
  ['rollup_day_totals', 'sel'],
  ['rollup_day_visitors', 'visitor_hash'],
  ['rollup_day_split_sessions', 'session_id'],
  ['rollup_day_pages', 'sel, page'],
  ['rollup_day_page_visitors', 'page, visitor_hash'],
  ['rollup_day_dims', 'set_id, tm, em'],
  ['rollup_day_acq', 'set_id, tm, em'],
  ['rollup_day_cross', 'dim_set_id, acq_set_id, tm, em'],
  ['rollup_day_props', 'name, tm, em, key nulls first, value nulls first'],
  ['rollup_day_entry', 'sel, kind, page'],
  ['rollup_day_entry_sessions', 'session_id'],
  ['rollup_day_session_state', 'session_id'],
  ['rollup_day_dim_pages', 'set_id, tm, em, path'],
  ['rollup_day_acq_pages', 'set_id, tm, em, path'],
  ['rollup_day_dim_names', 'set_id, tm, em, name'],
  ['rollup_day_acq_names', 'set_id, tm, em, name'],
  ['rollup_day_cross_pages', 'dim_set_id, acq_set_id, tm, em, path'],
  ['rollup_day_cross_names', 'dim_set_id, acq_set_id, tm, em, name'],
  ['rollup_day_path_names', 'name, path, tm, em'],
];

/** Every rollup row of the day, floats to 9 significant digits (a fold adds to a sum a build makes at once). */
async function rows(day: string) {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of TABLES) {
    const got = await sql.unsafe(
      `select * from ${table} where project_id = 'site' and day = $1::date order by ${order}`,
      [day],
    );
    out[table] = got.map((r) => {
      const row: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(r)) {
        if (k === 'project_id' || k === 'day') continue;
        row[k] = typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v;
      }
      if (Array.isArray(row.visitors)) row.visitors = [...(row.visitors as string[])].sort();
      if (typeof row.duration_ms === 'string') row.duration_ms = Number(Number(row.duration_ms).toPrecision(12));
      return row;
    });
  }
  const [day_] = await sql<{ irregular: boolean }[]>`
    select irregular from rollup_days where project_id = 'site' and day = ${day}::date`;
  out.irregular = [day_?.irregular];
  return out;
}

const marksOf = async (day: string) =>
  (
    await sql<
      { n: number }[]
    >`select count(*)::int as n from rollup_stale_days where project_id = 'site' and day = ${day}::date`
  )[0]!.n;

/** Folds the day, then builds it from its events, and checks both left the same rows. */
async function foldEqualsBuild(t: Test, day: string, label: string) {
  const seq = async () =>
    (
      await sql<
        { seq: string }[]
      >`select build_seq::text as seq from rollup_days where project_id = 'site' and day = ${day}::date`
    )[0]!.seq;
  const was = await seq();
  t.ok((await marksOf(day)) > 0, `${label}: the day is marked`);
  await reads(t, `${label}, marked`);
  t.equal(await foldDay(sql, 'site', day), 'folded', `${label}: folded`);
  t.equal(await marksOf(day), 0, `${label}: the fold took every mark`);
  t.not(await seq(), was, `${label}: the fold gave the day a new build sequence`);
  const folded = await rows(day);
  await reads(t, `${label}, folded`);
  t.equal(await buildDay(sql, 'site', day), 'built');
  const built = await rows(day);
  for (const [table] of TABLES) t.same(folded[table], built[table], `${label}: ${table} as a build makes it`);
  t.same(folded.irregular, built.irregular, `${label}: the irregular flag`);
}

const list = parseMetricList('visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session', []);
const values = parseMetricList('visitors,pageviews,events', []);
async function reads(t: Test, label: string) {
  for (const [traffic, environment] of [
    ['human', 'production'],
    ['all', 'all'],
  ] as const) {
    const scope = rollupScope(start, today + DAY, traffic, environment);
    const what = `${label} ${traffic}/${environment}`;
    t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], `stats ${what}`);
    await samePages(t, sql, scope, what);
    for (const dimension of ['entry_page', 'exit_page'])
      await sameAsRaw(
        t,
        sql,
        scope,
        dimensionKey(sql, dimension),
        list,
        await rollupEntryGroups(sql, scope, dimension, list),
        `${dimension} ${what}`,
      );
    for (const dimension of ['referrer_domain', 'country'])
      await sameAsRaw(
        t,
        sql,
        scope,
        sql`e.${sql(dimension)}::text`,
        values,
        await rollupDimensionGroups(sql, scope, dimension, values),
        `${dimension} ${what}`,
      );
    await sameAsRaw(
      t,
      sql,
      scope,
      sql`(e.props ->> 'plan')`,
      values,
      await rollupPropGroups(sql, scope, 'prop:plan', values),
      `prop:plan ${what}`,
    );
  }
}

/** How many events the session of the event `id` has. */
const sessionSize = async (id: string) =>
  (
    await sql<{ n: number }[]>`
    select count(*)::int as n from events x
    where x.project_id = 'site' and x.session_id = (select session_id from events where project_id = 'site' and id = ${id})`
  )[0]!.n;

t.test('late events into yesterday, folded', async (t) => {
  const known = events.find((e) => e.ts < today - 3 * DAY && !e.bot && !e.internal && e.environment === 'production')!;
  const crossing = events.filter((e) => e.ts >= today - 2 * DAY && e.ts < today - DAY && !e.bot).at(-1)!;
  const at = today - DAY + 9 * HOUR;
  await send([
    { id: 'f-bounce', visitor: 'f-bounce', ts: at },
    { id: 'f-walk', visitor: 'f-walk', ts: at + 5 * MIN, path: '/docs' },
    { visitor: 'f-walk', ts: at + 6 * MIN, name: 'signup', props: { plan: 'enterprise' } },
    { visitor: known.visitor, country: known.country, ts: at + HOUR },
    {
      visitor: 'f-ref',
      ts: at + 2 * HOUR,
      referrer: 'https://news.ycombinator.com/item?id=1',
      query: '?utm_source=hn&utm_medium=social',
    },
    { visitor: 'f-bot', ts: at + 3 * HOUR, bot: true },
    { ...crossing, id: 'f-crossing', ts: today - DAY + 2 * MIN },
    // one visitor, two sessions that both enter and leave on /docs
    { visitor: 'f-twice', session: 'f-twice-a', ts: at + 4 * HOUR, path: '/docs' },
    { visitor: 'f-twice', session: 'f-twice-b', ts: at + 5 * HOUR, path: '/docs' },
  ]);
  await foldEqualsBuild(t, yesterday, 'new sessions of yesterday');
  // The same sessions go on: a bounce becomes a visit, a session's entry page moves earlier and its exit
  // page later, time on page and scroll depth come in, a preview event joins a production session, and
  // one of a visitor's two sessions leaves on another page (the other still puts the visitor on /docs).
  await send([
    { id: 'f-bounce-2', visitor: 'f-bounce', ts: at + 2 * MIN, path: '/pricing' },
    { id: 'f-walk-entry', visitor: 'f-walk', ts: at + 4 * MIN, path: '/landing' },
    { id: 'f-walk-exit', visitor: 'f-walk', ts: at + 8 * MIN, path: '/exit-here' },
    {
      visitor: 'f-walk',
      ts: at + 9 * MIN,
      name: 'engagement',
      path: '/exit-here',
      props: { timeMs: 15_000, scrollDepth: 80 },
    },
    { id: 'f-preview', visitor: 'f-ref', ts: at + 2 * HOUR + MIN, environment: 'preview', name: 'click' },
    { id: 'f-twice-exit', visitor: 'f-twice', session: 'f-twice-a', ts: at + 4 * HOUR + 2 * MIN, path: '/pricing' },
  ]);
  for (const id of ['f-bounce-2', 'f-walk-entry', 'f-walk-exit', 'f-preview', 'f-twice-exit'])
    t.ok((await sessionSize(id)) >= 2, `${id} went on a session the day's rows hold`);
  await foldEqualsBuild(t, yesterday, 'sessions of yesterday going on');
  // A page whose time and scroll depth the rows hold from a report gets its time from the next pageview.
  await send([{ id: 'f-walk-next', visitor: 'f-walk', ts: at + 10 * MIN, path: '/pricing' }]);
  await foldEqualsBuild(t, yesterday, 'a reported page followed');
});

/** Whether the event `id` comes after everything the day's rows hold of its session, in the held events'
 *  class: the fold takes that session from its held state (0086), not from its events. */
const followsHeld = async (id: string) =>
  (
    await sql<{ ok: boolean }[]>`
    select exists (
      select 1 from events e join rollup_day_session_state k on k.project_id = e.project_id
        and k.day = (e.ts at time zone 'UTC')::date and k.session_id = e.session_id
      where e.project_id = 'site' and e.id = ${id} and (e.ts, e.id) > (k.last_ts, k.last_id)
        and k.tm = loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)
        and k.em = loupe_environment_bits(e.environment)) as ok`
  )[0]!.ok;

t.test('a session going on in order, folded from what the rows hold of it', async (t) => {
  const at = today - DAY + 15 * HOUR;
  const live = { visitor: 'f-live', session: 'f-live' };
  await send([{ ...live, id: 'f-live-a', ts: at, path: '/live-a' }]);
  await foldEqualsBuild(t, yesterday, 'a new session');
  // Reports on the held last page: its time and scroll depth grow, no page follows yet.
  await send([
    {
      ...live,
      id: 'f-live-report',
      ts: at + MIN,
      name: 'engagement',
      path: '/live-a',
      props: { timeMs: 3_000, scrollDepth: 40 },
    },
  ]);
  t.ok(await followsHeld('f-live-report'), 'the report follows what the rows hold');
  await foldEqualsBuild(t, yesterday, 'a report on the held last page');
  // A smaller report, the next page, a report on it and a custom event there.
  await send([
    {
      ...live,
      id: 'f-live-small',
      ts: at + 2 * MIN,
      name: 'engagement',
      path: '/live-a',
      props: { timeMs: 5_000, scrollDepth: 30 },
    },
    { ...live, id: 'f-live-b', ts: at + 3 * MIN, path: '/live-b' },
    { ...live, ts: at + 4 * MIN, name: 'engagement', path: '/live-b', props: { scrollDepth: 70 } },
    { ...live, ts: at + 5 * MIN, name: 'signup', path: '/live-b', props: { plan: 'team' } },
  ]);
  t.ok(await followsHeld('f-live-small'), 'the next page follows what the rows hold');
  await foldEqualsBuild(t, yesterday, 'the next page after the held last page');
  // An event of another class: the session is counted from its events and keeps no held state.
  await send([
    { ...live, id: 'f-live-preview', ts: at + 6 * MIN, environment: 'preview', name: 'click', path: '/live-b' },
  ]);
  t.notOk(await followsHeld('f-live-preview'), 'an event of another class does not');
  await foldEqualsBuild(t, yesterday, 'an event of another class');
  const [state] = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_day_session_state
    where project_id = 'site' and day = ${yesterday}::date
      and session_id = (select session_id from events where project_id = 'site' and id = 'f-live-a')`;
  t.equal(state!.n, 0, 'a session of two classes keeps no held state');
});

t.test("today's new events, folded", async (t) => {
  const todayDay = dayOf(today);
  const base = Math.max(today + 1_000, Math.min(Date.now() - 20 * MIN, today + DAY - 30 * MIN));
  await send([
    { id: 'f-today', visitor: 'f-today', ts: base + 2 * MIN },
    { visitor: 'f-today-ref', ts: base + 3 * MIN, referrer: 'https://example.org/' },
  ]);
  t.equal(await buildDay(sql, 'site', todayDay), 'built');
  await send([
    { id: 'f-today-entry', visitor: 'f-today', ts: base + MIN, path: '/landing' },
    { visitor: 'f-today', ts: base + 4 * MIN, name: 'signup', props: { plan: 'pro' } },
    { visitor: 'f-today', ts: base + 5 * MIN, name: 'engagement', props: { timeMs: 4_000, scrollDepth: 35 } },
    { id: 'f-today-exit', visitor: 'f-today-ref', ts: base + 6 * MIN, path: '/again' },
    { visitor: 'f-today-new', ts: base + 7 * MIN, path: '/docs' },
  ]);
  for (const id of ['f-today-entry', 'f-today-exit'])
    t.ok((await sessionSize(id)) >= 2, `${id} went on a session today's rows hold`);
  await foldEqualsBuild(t, todayDay, 'today');
});

t.test('a session stretched over midnight, folded', async (t) => {
  // Yesterday's last minutes and today's first: each day gets an event mark, yesterday a session mark too.
  const late = today - 3 * MIN;
  await send([
    { visitor: 'f-midnight', session: 'f-midnight', ts: late },
    { visitor: 'f-midnight', session: 'f-midnight', ts: Math.min(today + 2 * MIN, Date.now() - 1_000), path: '/docs' },
  ]);
  const [marks] = await sql<{ sessions: number }[]>`
    select count(*)::int as sessions from rollup_stale_days
    where project_id = 'site' and day = ${yesterday}::date and event_id is null and session_id is not null`;
  t.ok(marks!.sessions > 0, 'yesterday has a session mark');
  await foldEqualsBuild(t, yesterday, 'stretched, yesterday');
  if ((await marksOf(dayOf(today))) > 0) await foldEqualsBuild(t, dayOf(today), 'stretched, today');
});

t.test('a day marked as a whole is built, not folded', async (t) => {
  const day = today - 3 * DAY;
  await send(
    Array.from({ length: 2 }, (_, i) => ({ visitor: `f-one${i}`, session: `f-one${i}`, ts: day + HOUR + i * MIN })),
  );
  await sql`insert into rollup_stale_days (project_id, day) values ('site', ${dayOf(day)}::date)`;
  t.equal(await foldDay(sql, 'site', dayOf(day)), 'build', 'the caller builds it');
  t.ok((await marksOf(dayOf(day))) >= 3, 'every mark left for the build');
});

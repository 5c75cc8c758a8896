// Late events into built days (src/query/rollup/late.ts): a flush marks a few events of a past day one by
// one, the day stays readable from its rollup rows, and a read adds the marked events' share. Every read
// that adds it (stats, timeseries, the across-projects rows, pages, entry and exit pages, visitor-level,
// acquisition and crossed dimensions, props, event names) equals the raw path: after a late event in a
// built session, in a session over midnight, of a new and of a known visitor, of bots; after one
// committed between a build's steps; after a session continued past midnight; and once folded into the
// day's rows (fold.ts; rollup-fold.test.ts checks a fold against a build table by table). The builder
// leaves such days for a while (BACKGROUND_DUE), a whole-day mark not. Today is built too: the events
// written into it since are marked and added the same way, and the builder's rules for folding and
// rebuilding today keep their cost in check.
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';
import { generate, send, type Sent, buildRollups, rollupScope, sameAsRaw, samePages } from './reference.ts';
import type { Filter } from '../../src/query/params.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Fragment } from '../../src/query/dimensions.ts';
import type { Metric } from '../../src/query/metrics.ts';
import { rollupStats } from '../../src/query/rollup/stats.ts';
import { statsSql } from '../../src/query/stats.ts';
import { runTimeseries, timeseriesSql } from '../../src/query/timeseries.ts';
import { planRange } from '../../src/query/rollup/segments.ts';
import { rollupProjectGroups } from '../../src/query/rollup/projects.ts';
import { rollupDimensionGroups } from '../../src/query/rollup/dims.ts';
import { rollupEventGroups, rollupPropGroups } from '../../src/query/rollup/props.ts';
import { VALUE_ROW_TUNING } from '../../src/query/rollup/value-rows.ts';
import { rollupEntryGroups } from '../../src/query/rollup/entry.ts';
import { rollupSpeedScores } from '../../src/query/rollup/speed.ts';
import { rollupRetentionCells } from '../../src/query/rollup/retention.ts';
import { rawRetentionCells } from '../../src/query/retention.ts';
import { dimensionKey, parseMetricList, speedScores } from '../../src/query/breakdown.ts';
import { BACKGROUND_DUE, buildDay, buildPendingRollups } from '../../src/query/rollup/builder.ts';
import { EVENT_MARKS_PER_DAY } from '../../src/db/rollup-marks.ts';
import { query } from '../../src/db/queries.ts';

const DAY = 86_400_000;
const MIN = 60_000;
t.setTimeout(900_000);
const s = await startTestServer({ ingestRate: { capacity: 100_000, refillPerSecond: 100_000 }, rollupBuildMs: 0 });
t.teardown(() => s.close());
const site = await s.project('site');
const other = await s.project('other');
await s.project('empty'); // no events at all: none of its days waits for a build
const owner = await s.member('owner');
const sql = s.loupe.services.sql;
const now = Date.now();
const today = Math.floor(now / DAY) * DAY;
const start = today - 6 * DAY;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const yesterday = dayOf(today - DAY);
const events = generate('l', start, 7, 70, 5).filter((e) => e.ts < now - MIN);
await send(s, site.secretKey, events, owner.cookie);
await send(
  s,
  other.secretKey,
  generate('lo', start, 7, 25, 9).filter((e) => e.ts < now - MIN),
  owner.cookie,
);
await buildRollups(s);

const metrics = ['visitors', 'pageviews', 'events', 'sessions', 'bounce_rate', 'session_duration', 'pages_per_session'];
const selections = [
  ['human', 'production'],
  ['all', 'all'],
  ['bots', 'all'],
  ['internal', 'all'],
] as const;
const ranges = (): [string, number, number][] => [
  ['whole days', start, today],
  ['into today', start + DAY, now],
  ['with today', start + DAY, today + DAY],
  ['up to now', start + DAY, Date.now()],
  ['yesterday', today - DAY, today],
];
const f = (dimension: string, value: string, exclude = false): Filter => ({ dimension, value, exclude });
const values = parseMetricList('visitors,pageviews,events', []);

/** Every read against the raw path, over each range and selection. */
type Same = (
  scope: Scope,
  key: Fragment,
  of: Metric[],
  rolled: { grouped: Fragment } | null,
  what: string,
) => Promise<unknown>;

/** The value-row breakdowns (dimensions, acquisition, props, event names) against the raw path. */
async function sameValues(same: Same, one: Scope, label: string) {
  for (const [dimension, filters] of [
    ['country', []],
    ['browser', [f('country', 'GB', true)]],
    ['referrer_domain', []],
    ['utm_source', [f('channel', 'Direct', true)]],
    ['channel', [f('country', 'GB')]],
  ] as [string, Filter[]][]) {
    const scope = { ...one, filters };
    const rolled = await rollupDimensionGroups(sql, scope, dimension, values);
    await same(
      scope,
      sql`e.${sql(dimension)}::text`,
      values,
      rolled,
      `${dimension} ${JSON.stringify(filters)} ${label}`,
    );
  }
  for (const filters of [[], [f('event', 'signup')]]) {
    const scope = { ...one, filters };
    const props = await rollupPropGroups(sql, scope, 'prop:plan', values);
    await same(scope, sql`(e.props ->> 'plan')`, values, props, `prop:plan ${JSON.stringify(filters)} ${label}`);
    await same(scope, sql`e.name`, values, await rollupEventGroups(sql, scope, values), `event ${label}`);
  }
}

async function withTuning(upTo: number, run: () => Promise<void>) {
  const was = VALUE_ROW_TUNING.overlapUpTo;
  VALUE_ROW_TUNING.overlapUpTo = upTo;
  try {
    await run();
  } finally {
    VALUE_ROW_TUNING.overlapUpTo = was;
  }
}

async function compareAll(t: Test, when: string) {
  const list = parseMetricList(metrics.join(','), []);
  // A breakdown from the rollups (null fails) against the raw path's, by the key the raw path groups on.
  const same = async (scope: Scope, key: Fragment, of: Metric[], rolled: { grouped: Fragment } | null, what: string) =>
    sameAsRaw(t, sql, scope, key, of, rolled, what);
  for (const [name, from, to] of ranges()) {
    for (const [traffic, environment] of selections) {
      const label = `${when}: ${name} ${traffic}/${environment}`;
      const one = rollupScope(from, to, traffic, environment);
      const both = rollupScope(from, to, traffic, environment, ['site', 'other']);
      for (const scope of [one, both])
        t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], `stats ${label}`);
      // A page filter beside one family's: the path's facts per set.
      for (const filters of [
        [f('page', '/pricing'), f('country', 'GB')],
        [f('page', '/pricing'), f('country', 'GB', true)],
        [f('page', '/pricing'), f('channel', 'Direct')],
      ]) {
        const scope = { ...one, filters };
        t.same(
          await rollupStats(sql, scope),
          (await statsSql(sql, scope))[0],
          `stats ${JSON.stringify(filters)} ${label}`,
        );
      }
      await same(both, sql`e.project_id`, list, await rollupProjectGroups(sql, both, list), `projects ${label}`);
      for (const interval of ['day', 'week'] as const)
        for (const metric of metrics)
          t.same(
            await runTimeseries(sql, both, metric, interval),
            await timeseriesSql(sql, both, metric, interval),
            `${label} ${metric} by ${interval}`,
          );
      // Both ways of finding the added visitors in the rolled rows (value-rows.ts): rows asked first
      // whether they hold one, and every row of their days unnested.
      for (const upTo of [VALUE_ROW_TUNING.overlapUpTo, 0])
        await withTuning(upTo, () => sameValues(same, one, `${label}${upTo === 0 ? ' (unnested)' : ''}`));
      await samePages(t, sql, one, label);
      // Under `page=X` alone the one row's session metrics are the block's under the filter, its facts X's own.
      await samePages(t, sql, { ...one, filters: [f('page', '/pricing')] }, `page=/pricing ${label}`);
      const beside = [f('page', '/pricing'), f('country', 'GB')];
      await samePages(t, sql, { ...one, filters: beside }, `page=/pricing & country=GB ${label}`);
      for (const dimension of ['entry_page', 'exit_page']) {
        const rolled = await rollupEntryGroups(sql, one, dimension, list);
        await same(one, dimensionKey(sql, dimension), list, rolled, `${dimension} ${label}`);
      }
      for (const interval of ['week', 'month'] as const) {
        const cells = await rollupRetentionCells(sql, one, interval);
        if (cells)
          t.same(cells, [...(await rawRetentionCells(sql, one, interval))], `retention by ${interval} ${label}`);
      }
    }
  }
}

/** Sends late events with a referrer and UTM tags (what the generated traffic lacks). */
async function sendLate(list: Sent[], opts: { referrer?: string; query?: string; bot?: boolean } = {}) {
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    headers: { 'user-agent': opts.bot ? 'Googlebot/2.1 (+http://www.google.com/bot.html)' : chrome },
    body: {
      events: list.map((e) => ({
        id: e.id,
        name: e.name,
        visitor: e.visitor,
        session: e.session,
        ts: new Date(e.ts).toISOString(),
        environment: e.environment,
        page: { url: `https://shop.example.com${e.path}${opts.query ?? ''}`, referrer: opts.referrer ?? null },
        props: { plan: e.plan },
        context: { ip: e.country === 'GB' ? '81.2.69.142' : '10.1.2.3' },
      })),
    },
  });
  if (res.status !== 202 || res.body.accepted !== list.length) throw new Error(`ingest: ${res.status}`);
  await s.settle();
}
const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const human = events.find((e) => !e.bot && !e.internal && !e.localhost && e.environment === 'production')!;
const marks = async () =>
  sql<{ day: string; event_id: string | null; session_id: string | null }[]>`
    select to_char(day, 'YYYY-MM-DD') as day, event_id, session_id from rollup_stale_days where project_id = 'site'
    order by 1, 2, 3`;
let n = 0;
const late = (ts: number, over: Partial<Sent> = {}): Sent => ({ ...human, id: `late${++n}`, ts, ...over });

t.test('late events are marked one by one and added to the built day', async (t) => {
  // A one-pageview session of yesterday (a bounce) gets a second pageview; a known visitor comes back
  // in a new session; a new visitor; a session from the day before yesterday runs over midnight.
  const bySession = new Map<string, Sent[]>();
  for (const e of events)
    if (e.ts >= today - DAY && e.ts < today) bySession.set(e.session, [...(bySession.get(e.session) ?? []), e]);
  const bounce = [...bySession.values()].find((l) => l.length === 1 && l[0]!.name === 'pageview' && !l[0]!.bot)![0]!;
  const known = events.find((e) => e.ts < today - 2 * DAY && !e.bot && !e.internal)!;
  const crossing = events.filter((e) => e.ts >= today - 2 * DAY && e.ts < today - DAY && !e.bot).at(-1)!;
  await sendLate([
    { ...bounce, id: 'late-bounce', ts: bounce.ts + 3 * MIN, path: '/pricing' },
    late(today - DAY + 9 * 3_600_000, { visitor: known.visitor, session: 'late-known', country: known.country }),
    late(today - DAY + 10 * 3_600_000, {
      visitor: 'late-new',
      session: 'late-new',
      name: 'signup',
      plan: 'enterprise',
    }),
    { ...crossing, id: 'late-crossing', ts: today - DAY + 2 * MIN },
  ]);
  await sendLate([late(today - DAY + 11 * 3_600_000, { visitor: 'late-ref', session: 'late-ref' })], {
    referrer: 'https://news.ycombinator.com/item?id=1',
    query: '?utm_source=hn&utm_medium=social',
  });
  await sendLate([late(today - DAY + 12 * 3_600_000, { visitor: 'late-bot', session: 'late-bot' })], { bot: true });
  const got = await marks();
  t.ok(got.length > 0 && got.every((m) => m.event_id !== null || m.session_id !== null), 'no day marked whole');
  t.ok(
    got.some((m) => m.event_id === 'late-bounce' && m.day === yesterday),
    'an event mark names the event',
  );
  const plan = await planRange(sql, rollupScope(start, today, 'all', 'all'), { patch: true });
  t.ok(plan!.rolled.includes(yesterday) && plan!.late.includes(yesterday), 'yesterday stays rolled, with late events');
  t.ok(
    await rollupRetentionCells(sql, rollupScope(start, today, 'all', 'all'), 'week'),
    'retention takes the late events too',
  );
  t.same(plan!.raw, [], 'nothing read from events but the late events');
  const whole = await planRange(sql, rollupScope(start, today, 'all', 'all'));
  t.notOk(whole!.rolled.includes(yesterday), 'a read that cannot add them reads the day from events');
  await compareAll(t, 'late');
  t.equal(
    (await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days,
    0,
    'the builder leaves fresh late marks',
  );
  await buildRollups(s);
  t.same(await marks(), [], 'the fold takes every mark');
  await compareAll(t, 'folded');
});

t.test('a late event committed between the steps of a build is added once', async (t) => {
  await sendLate([late(today - DAY + 13 * 3_600_000, { visitor: 'late-step0', session: 'late-step0' })]);
  let sent = 0;
  const done = await buildDay(sql, 'site', yesterday, async (step) => {
    if (step === 'build_rollup_days' || sent > 2) return;
    // Sessions already built in some tables and not yet in others.
    await sendLate([late(today - DAY + 13 * 3_600_000 + ++sent * 5 * MIN, { visitor: 'late-step0' })]);
  });
  t.equal(done, 'built');
  t.equal(sent, 3, 'late events came between three steps');
  const left = (await marks()).filter((m) => m.event_id?.startsWith('late'));
  t.equal(left.length, 3, 'their marks outlive the build, which left their events out');
  await compareAll(t, 'between steps');
});

t.test('a session over midnight marks yesterday for the session, not as a whole', async (t) => {
  await buildRollups(s);
  await sendLate([
    late(today - 3 * MIN, { visitor: 'late-midnight', session: 'late-midnight' }),
    late(Math.min(today + 2 * MIN, now - 1_000), { visitor: 'late-midnight', session: 'late-midnight' }),
  ]);
  const got = await marks();
  t.ok(
    got.some((m) => m.day === yesterday && m.session_id !== null && m.event_id === null),
    'a session mark',
  );
  t.notOk(
    got.some((m) => m.event_id === null && m.session_id === null),
    'no whole-day mark',
  );
  await compareAll(t, 'stretched');
});

t.test('many events of one day mark it whole, and the builder takes it at once', async (t) => {
  await buildRollups(s);
  const day = today - 3 * DAY;
  await sendLate(
    Array.from({ length: EVENT_MARKS_PER_DAY + 1 }, (_, i) =>
      late(day + 3_600_000 + i * MIN, { visitor: `late-bulk${i % 7}`, session: `late-bulk${i % 7}` }),
    ),
  );
  t.ok(
    (await marks()).some((m) => m.day === dayOf(day) && m.event_id === null && m.session_id === null),
    'a whole-day mark',
  );
  const plan = await planRange(sql, rollupScope(start, today, 'all', 'all'), { patch: true });
  t.notOk(plan!.rolled.includes(dayOf(day)), 'the day is read from events');
  await compareAll(t, 'whole day');
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 1, 'rebuilt on the next pass');
  await compareAll(t, 'whole day rebuilt');
});

t.test('old or many late marks are due for the builder', async (t) => {
  await sendLate([late(today - 2 * DAY + 5 * 3_600_000, { visitor: 'late-old', session: 'late-old' })]);
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 0, 'fresh: left');
  await sql`update rollup_stale_days set marked_at = now() - interval '11 minutes'
    where project_id = 'site' and day = ${dayOf(today - 2 * DAY)}`;
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 1, 'old: folded');
  t.same(
    (await marks()).filter((m) => m.day < dayOf(today)),
    [],
  );
  await compareAll(t, 'due');
});

t.test('a rebuild of yesterday keeps the values counted over the days before it', async (t) => {
  await buildRollups(s);
  const scope = rollupScope(start, today, 'human', 'production');
  const list = parseMetricList(metrics.join(','), []);
  const read = async (label: string) => {
    t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], `stats ${label}`);
    await samePages(t, sql, scope, label);
    await withTuning(VALUE_ROW_TUNING.overlapUpTo, () => sameValues((...a) => sameAsRaw(t, sql, ...a), scope, label));
    for (const interval of ['week', 'month'] as const)
      t.same(
        await rollupRetentionCells(sql, scope, interval),
        [...(await rawRetentionCells(sql, scope, interval))],
        `retention by ${interval} ${label}`,
      );
    await same(scope, list, label);
    for (const dimension of ['entry_page', 'exit_page']) {
      const rolled = await rollupEntryGroups(sql, scope, dimension, list);
      await sameAsRaw(t, sql, scope, dimensionKey(sql, dimension), list, rolled, `${dimension} ${label}`);
    }
  };
  const same = async (one: Scope, of: Metric[], label: string) =>
    sameAsRaw(t, sql, one, sql`e.project_id`, of, await rollupProjectGroups(sql, one, of), `projects ${label}`);
  const kept = async () =>
    new Map(
      (
        await sql<{ kind: string; to_day: string; computed_at: Date }[]>`
        select kind, to_char(to_day, 'YYYY-MM-DD') as to_day, computed_at from rollup_range_values
        where project_id = 'site' and from_day = ${dayOf(start)}::date and sel = 0`
      ).map((r) => [`${r.kind} ${r.to_day}`, r.computed_at.getTime()]),
    );
  await read('counted');
  const before = await kept();
  const settled = [...before.keys()].filter((k) => k.includes(`-without:${yesterday}`));
  t.ok(
    [
      'visitors',
      'page_visitors',
      'retention:week',
      'retention:month',
      'dim_visitors:country',
      'prop_visitors:plan',
      'entry:entry_page',
      'entry:exit_page',
    ].every((kind) => settled.some((k) => k.startsWith(kind))),
    'each kind of value is kept over the days before yesterday too',
  );
  // A known visitor and a new one come back yesterday, one of them through a referrer; the day is rebuilt.
  const known = events.find((e) => e.ts < today - 3 * DAY && !e.bot && !e.internal && e.environment === 'production')!;
  await sendLate([
    late(today - DAY + 17 * 3_600_000, { visitor: known.visitor, session: 'kept-known', country: known.country }),
  ]);
  await sendLate([late(today - DAY + 18 * 3_600_000, { visitor: 'kept-new', session: 'kept-new', path: '/kept' })], {
    referrer: 'https://news.ycombinator.com/item?id=3',
  });
  t.equal(await buildDay(sql, 'site', yesterday), 'built');
  await read('yesterday rebuilt');
  const after = await kept();
  for (const k of settled) t.equal(after.get(k), before.get(k), `not counted again: ${k}`);
  const whole = [...before.keys()].filter((k) => !k.includes('-without:') && after.get(k)! > before.get(k)!);
  t.ok(whole.length >= 8, `the values over the whole range were counted again, from those (${whole.length})`);
});

t.test('a project without events leaves every day to the rollups', async (t) => {
  const scope = rollupScope(start, today, 'human', 'production', ['site', 'other', 'empty']);
  const plan = await planRange(sql, scope, { patch: true });
  t.equal(plan!.raw.length, 0, 'nothing read from events');
  t.equal(plan!.rolled.length, 6, 'every whole day rolled');
  const list = parseMetricList(metrics.join(','), []);
  await sameAsRaw(t, sql, scope, sql`e.project_id`, list, await rollupProjectGroups(sql, scope, list), 'projects');
  t.same(await rollupStats(sql, scope), (await statsSql(sql, scope))[0], 'stats');
});

t.test('a kept speed score outlives late events that carry no Web Vitals', async (t) => {
  const vitals = async (ts: number, id: string, lcp = 1800) => {
    const res = await s.request('POST', '/v2/ingest', {
      token: site.secretKey,
      headers: { 'user-agent': chrome },
      body: {
        events: [
          {
            id,
            name: 'speed',
            visitor: 'late-speed',
            ts: new Date(ts).toISOString(),
            page: { path: '/' },
            vitals: { lcp, ttfb: 90 },
          },
        ],
      },
    });
    if (res.status !== 202) throw new Error(`ingest: ${res.status}`);
    await s.settle();
  };
  await vitals(today - 3 * DAY + 3_600_000, 'late-speed-1');
  await buildRollups(s);
  const scope = rollupScope(start, today, 'human', 'production');
  const raw = await speedScores(sql, scope, ['site']);
  t.ok(raw.get('site') !== null, 'the project has a score');
  t.same(await rollupSpeedScores(sql, scope, ['site'], speedScores), raw, 'kept');
  await sendLate([late(today - DAY + 15 * 3_600_000, { visitor: 'late-speed-pv' })]);
  t.same(await rollupSpeedScores(sql, scope, ['site'], speedScores), raw, 'kept across a late pageview');
  // Late Web Vitals change the score: it is counted again, then kept under their marks until the next.
  const sampled = async (lcp: number, id: string, ts: number) => {
    await vitals(ts, id, lcp);
    const now = await speedScores(sql, scope, ['site']);
    t.same(await rollupSpeedScores(sql, scope, ['site'], speedScores), now, `counted again after ${id}`);
    return now;
  };
  const afterLate = await sampled(9_000, 'late-speed-2', today - DAY + 16 * 3_600_000);
  t.not(afterLate.get('site'), raw.get('site'), 'the late sample changed the score');
  const tell = async (score: number) =>
    sql`update rollup_range_values set value = jsonb_set(value, '{score}', ${score}::text::jsonb)
      where project_id = 'site' and kind = 'speed_score' and from_day = ${dayOf(start)}::date`;
  await tell(7);
  t.same(await rollupSpeedScores(sql, scope, ['site'], speedScores), new Map([['site', 7]]), 'then kept');
  await sendLate([late(today - DAY + 17 * 3_600_000, { visitor: 'late-speed-pv2' })]);
  t.same(
    await rollupSpeedScores(sql, scope, ['site'], speedScores),
    new Map([['site', 7]]),
    'kept across another late pageview',
  );
  await sampled(400, 'late-speed-3', today - 2 * DAY + 9 * 3_600_000);
  await tell(7);
  await buildRollups(s);
  t.not(
    (await rollupSpeedScores(sql, scope, ['site'], speedScores))?.get('site'),
    7,
    'counted again once the builder took the marks',
  );
  t.same(await rollupSpeedScores(sql, scope, ['site'], speedScores), await speedScores(sql, scope, ['site']), 'exact');
});

t.test('today is read from its rollup plus the events written since', async (t) => {
  const todayDay = dayOf(today);
  t.equal(await buildDay(sql, 'site', todayDay), 'built');
  t.same(
    (await marks()).filter((m) => m.day === todayDay),
    [],
    'the build took every mark of today',
  );
  // With no marks on any day, retention through today is kept under the range's largest build sequence: a
  // second read is the kept value (changed here to tell), and a rebuild of today counts it again.
  await buildRollups(s);
  const throughToday = rollupScope(start + DAY, today + DAY, 'human', 'production');
  const first = await rollupRetentionCells(sql, throughToday, 'week');
  t.ok(first && first.length > 0, 'retention through today from the rollups');
  const kind = 'retention-through-today:week';
  const keptRows = await sql`
    select 1 from rollup_range_values v
    where v.project_id = 'site' and v.kind = ${kind} and v.from_day = ${dayOf(start + DAY)}::date
      and v.build_seq = (select max(build_seq) from rollup_days where project_id = 'site')`;
  t.equal(keptRows.length, 1, 'kept under the newest build');
  const marker = [{ cohort: '2000-01-03T00:00:00.000Z', period: '2000-01-03T00:00:00.000Z', visitors: 7 }];
  await sql`update rollup_range_values set value = ${sql.json(marker)}
    where project_id = 'site' and kind = ${kind} and from_day = ${dayOf(start + DAY)}::date`;
  t.same(
    await rollupRetentionCells(sql, throughToday, 'week'),
    [{ cohort: new Date(marker[0]!.cohort), period: new Date(marker[0]!.period), visitors: 7 }],
    'the second read is the kept value',
  );
  t.equal(await buildDay(sql, 'site', todayDay), 'built');
  t.same(await rollupRetentionCells(sql, throughToday, 'week'), first, 'after a rebuild of today: counted again');
  const at = () => Math.min(Date.now() - 1_000, today + DAY - 1_000);
  const bounce = events.filter((e) => e.ts >= today && !e.bot).at(-1);
  await sendLate([
    late(at(), { visitor: 'today-new', session: 'today-new' }),
    late(at(), { visitor: 'today-new', session: 'today-new', name: 'signup', plan: 'pro' }),
    ...(bounce ? [{ ...bounce, id: 'today-again', ts: at(), path: '/again' }] : []),
  ]);
  await sendLate([late(at(), { visitor: 'today-ref', session: 'today-ref' })], {
    referrer: 'https://news.ycombinator.com/item?id=2',
    query: '?utm_source=hn&utm_medium=social',
  });
  const mine = (await marks()).filter((m) => m.day === todayDay);
  t.ok(mine.length >= 3 && mine.every((m) => m.event_id !== null), 'each event written into today is marked');
  const plan = await planRange(sql, rollupScope(start + DAY, today + DAY, 'all', 'all'), { patch: true });
  t.ok(plan!.rolled.includes(todayDay) && plan!.late.includes(todayDay), 'today rolled, with its new events added');
  t.same(plan!.raw, [], 'nothing read from events but the new ones');
  const upToNow = await planRange(sql, rollupScope(start + DAY, Date.now(), 'all', 'all'), { patch: true });
  t.ok(upToNow!.rolled.includes(todayDay), 'up to now, with no event after it: today rolled');
  const before = await planRange(sql, rollupScope(start + DAY, at() - 60_000, 'all', 'all'), { patch: true });
  t.notOk(before!.rolled.includes(todayDay), 'a range that ends before some event of today reads its part from events');
  await compareAll(t, 'today');
  const withToday = rollupScope(start + DAY, today + DAY, 'human', 'production');
  t.ok(await rollupRetentionCells(sql, withToday, 'week'), "retention over today's rollup and its new events");
  // Past 20,000 event marks (loupe_patch_limit, today), adding their share would cost more than reading the
  // day: read from events.
  await sql`insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
    select 'site', ${todayDay}::date, 'many' || i, now(), 'many' from generate_series(1, 20000) i`;
  const many = await planRange(sql, rollupScope(start + DAY, today + DAY, 'all', 'all'), { patch: true });
  t.notOk(many!.rolled.includes(todayDay), 'with too many marks today is read from events');
  await sql`delete from rollup_stale_days where project_id = 'site' and event_id like 'many%'`;
  // A day before yesterday keeps no held state of its sessions: its limit is 5,000.
  const older = dayOf(today - 2 * DAY);
  await sql`insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
    select 'site', ${older}::date, 'many' || i, now(), 'many' from generate_series(1, 5001) i`;
  const old = await planRange(sql, rollupScope(start + DAY, today + DAY, 'all', 'all'), { patch: true });
  t.notOk(old!.rolled.includes(older), 'a day before yesterday with 5,001 marks is read from events');
  await sql`delete from rollup_stale_days where project_id = 'site' and event_id like 'many%'`;
});

t.test("the builder's rule for today", async (t) => {
  const todayDay = dayOf(today);
  const at = () => Math.min(Date.now() - 1_000, today + DAY - 1_000);
  // The builder takes today only once it began 5 minutes ago (flushes stamped before midnight have
  // committed): in those minutes it leaves today whatever its marks, and that is what is checked.
  if (Date.now() - today < 6 * MIN) {
    await sql`update rollup_stale_days set marked_at = now() - interval '11 minutes' where project_id = 'site' and day = ${todayDay}`;
    const seq = async () =>
      (
        await sql<{ seq: string }[]>`
        select coalesce(max(build_seq), 0)::text as seq from rollup_days where project_id = 'site' and day = ${todayDay}`
      )[0]!.seq;
    const before = await seq();
    await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
    t.equal(await seq(), before, 'in the first minutes of the day the builder leaves today');
    await compareAll(t, 'today, early');
    return;
  }
  // Fresh marks stay; old ones are folded, three times the last fold's length after its start.
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 0, 'fresh marks: left');
  await sql`update rollup_stale_days set marked_at = now() - interval '11 minutes' where project_id = 'site' and day = ${todayDay}`;
  await sql`update rollup_days set folded_at = now() - interval '1 minute', fold_ms = 30000 where project_id = 'site' and day = ${todayDay}`;
  t.equal(
    (await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days,
    0,
    'old marks, a long fold just now: left',
  );
  await sql`update rollup_days set fold_ms = 1000 where project_id = 'site' and day = ${todayDay}`;
  const [built] = await sql<{ built_at: Date }[]>`
    select built_at from rollup_days where project_id = 'site' and day = ${todayDay}`;
  const folded = await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
  t.equal(folded.days, 1, 'old marks, a short fold: folded');
  t.same(folded.built, [], 'a fold of today alone changes no kept value: the warm pass is not asked');
  const [row] = await sql<{ fold_ms: number | null; built_at: Date }[]>`
    select fold_ms, built_at from rollup_days where project_id = 'site' and day = ${todayDay}`;
  t.ok(row!.fold_ms !== null && row!.fold_ms >= 0, 'the builder records how long the fold took');
  t.equal(row!.built_at.getTime(), built!.built_at.getTime(), 'folded, not built');
  t.same(
    (await marks()).filter((m) => m.day === todayDay),
    [],
    'the fold took the marks',
  );
  await compareAll(t, 'today folded');
  // The fold listed today's events beside its session facts per set, which reads under filters add; the
  // builder counts the facts again once the list is due, at most once every ten lengths of the last count
  // (0101): today's count grows with the day.
  const listed = async () =>
    (
      await sql<{ n: number }[]>`
      select count(*)::int as n from rollup_set_session_late where project_id = 'site' and day = ${todayDay}`
    )[0]!.n;
  const picked = async () =>
    (
      await query<{ project_id: string }>(sql, 'list_marked_projects', [
        ['site'],
        BACKGROUND_DUE.marks,
        BACKGROUND_DUE.ageS,
      ])
    ).map((r) => r.project_id);
  const fresh = await listed();
  t.ok(fresh > 0, `the fold listed today's events (${fresh})`);
  await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
  t.equal(await listed(), fresh, 'a fresh list: left');
  await sql`update rollup_set_session_late set at = now() - interval '11 minutes' where project_id = 'site' and day = ${todayDay}`;
  await sql`update rollup_set_session_days set counted_at = now(), count_ms = 600000
    where project_id = 'site' and day = ${todayDay}`;
  t.same(await picked(), [], 'an old list, a long count just now: no pass looks at the project for it');
  await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
  t.equal(await listed(), fresh, 'nor counts it');
  await sql`update rollup_set_session_days set counted_at = now() - interval '1 minute', count_ms = 1234
    where project_id = 'site' and day = ${todayDay}`;
  // A day marked whole is left to its rebuild, which counts its facts: no pass looks at it for its list.
  await sql`insert into rollup_stale_days (project_id, day) values ('site', ${todayDay}::date)`;
  t.same(await picked(), [], 'an old list on a day marked whole (a fresh whole mark): not looked at');
  await sql`delete from rollup_stale_days where project_id = 'site' and day = ${todayDay} and event_id is null
    and session_id is null`;
  t.same(
    await picked(),
    ['site'],
    'an old list, a short count a minute ago: the pass looks at the project without a mark',
  );
  const [passStart] = await sql<{ now: Date }[]>`select now() as now`;
  await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
  t.equal(await listed(), 0, "today's facts counted again: the list emptied");
  const [count] = await sql<{ count_ms: number | null; counted_at: Date }[]>`
    select count_ms, counted_at from rollup_set_session_days where project_id = 'site' and day = ${todayDay}`;
  t.ok(
    count!.count_ms !== null && count!.count_ms !== 1234,
    `the builder records how long the count took (${count!.count_ms} ms)`,
  );
  t.ok(count!.counted_at.getTime() >= passStart!.now.getTime(), 'and when');
  t.same(await picked(), [], 'counted: no pass looks at the project for it');
  const plan = await planRange(
    sql,
    { ...rollupScope(start + DAY, today + DAY, 'all', 'all'), filters: [f('country', 'GB')] },
    {
      patch: true,
      setSessions: true,
    },
  );
  t.ok(plan!.rolled.includes(todayDay) && !plan!.late.includes(todayDay), 'today from its facts alone under a filter');
  await compareAll(t, 'today counted again');
  // Today is folded however many marks it gathers (its sessions going on cost their own share; a rebuild
  // would leave it pending throughout), even past the 20,000 that reads patch.
  await sql`insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
    select 'site', ${todayDay}::date, 'many' || i, now(), 'many' from generate_series(1, 20001) i`;
  await sql`update rollup_days set folded_at = now() - interval '1 hour' where project_id = 'site' and day = ${todayDay}`;
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 1, 'many marks on today: taken');
  const [refolded] = await sql<{ built_at: Date }[]>`
    select built_at from rollup_days where project_id = 'site' and day = ${todayDay}`;
  t.equal(refolded!.built_at.getTime(), built!.built_at.getTime(), 'folded, not built');
  t.same(
    (await marks()).filter((m) => m.day === todayDay),
    [],
    'the fold took the marks',
  );
  // A day before yesterday keeps no held state: past 5,000 marks it is rebuilt.
  const older = dayOf(today - 2 * DAY);
  const [olderBuilt] = await sql<{ built_at: Date }[]>`
    select built_at from rollup_days where project_id = 'site' and day = ${older}`;
  await sql`insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
    select 'site', ${older}::date, 'many' || i, now(), 'many' from generate_series(1, 5001) i`;
  const olderPass = await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE });
  t.equal(olderPass.days, 1, 'many marks on an older day');
  t.same(olderPass.built, ['site'], 'a rebuilt past day asks the warm pass for the project');
  const [rebuilt] = await sql<{ built_at: Date }[]>`
    select built_at from rollup_days where project_id = 'site' and day = ${older}`;
  t.ok(rebuilt!.built_at.getTime() > olderBuilt!.built_at.getTime(), 'built, not folded');
  t.same(
    (await marks()).filter((m) => m.day === older),
    [],
    'the rebuild took the marks',
  );
  await compareAll(t, 'many marks taken');

  // A flush of many of today's events marks it whole: read from events until the builder takes it, which
  // it does once the last such mark is a minute old.
  await sendLate(
    Array.from({ length: EVENT_MARKS_PER_DAY + 1 }, (_, i) =>
      late(at() - i, { visitor: `today-bulk${i % 5}`, session: `today-bulk${i % 5}` }),
    ),
  );
  t.ok(
    (await marks()).some((m) => m.day === todayDay && m.event_id === null && m.session_id === null),
    'a whole-day mark on today',
  );
  const whole = await planRange(sql, rollupScope(start + DAY, today + DAY, 'all', 'all'), { patch: true });
  t.notOk(whole!.rolled.includes(todayDay), 'today is read from events');
  t.ok(
    await rollupRetentionCells(sql, rollupScope(start + DAY, today + DAY, 'human', 'production'), 'week'),
    "retention takes today's visitors from its events, the closed days from the rollups",
  );
  await compareAll(t, 'today whole');
  await sql`update rollup_days set build_ms = 0 where project_id = 'site' and day = ${todayDay}`;
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 0, 'a fresh whole-day mark: left');
  // A few events into today while it is marked whole mark it whole again, one row, not one an event.
  const todayMarks = async () => (await marks()).filter((m) => m.day === todayDay);
  const before = (await todayMarks()).length;
  await sendLate([
    late(at(), { visitor: 'today-few', session: 'today-few' }),
    late(at() - 1, { visitor: 'today-few', session: 'today-few' }),
  ]);
  const after = await todayMarks();
  t.equal(after.length, before + 1, 'one mark for the flush');
  t.ok(
    after.every((m) => m.event_id === null && m.session_id === null),
    'a day marked whole takes a whole mark, not event marks',
  );
  await sql`update rollup_stale_days set marked_at = now() - interval '2 minutes' where project_id = 'site' and day = ${todayDay}`;
  t.equal((await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days, 1, 'a minute later: rebuilt');
  await compareAll(t, 'today whole rebuilt');
  // Under steady traffic the whole marks never pause for a minute: once the first is five minutes old,
  // today is rebuilt anyway (twenty build lengths after its last build), so its marks do not gather all day.
  await sendLate(
    Array.from({ length: EVENT_MARKS_PER_DAY + 1 }, (_, i) =>
      late(at() - i, { visitor: `today-steady${i % 5}`, session: `today-steady${i % 5}` }),
    ),
  );
  await sql`update rollup_stale_days set marked_at = now() - interval '6 minutes' where project_id = 'site' and day = ${todayDay}`;
  await sendLate([late(at(), { visitor: 'today-steady0', session: 'today-steady0' })]);
  await sql`update rollup_days set build_ms = 0 where project_id = 'site' and day = ${todayDay}`;
  t.equal(
    (await buildPendingRollups(sql, ['site'], { due: BACKGROUND_DUE })).days,
    1,
    'whole marks for five minutes, the last fresh: rebuilt',
  );
  t.same(await todayMarks(), [], 'the rebuild took the marks');
  await compareAll(t, 'today rebuilt under steady traffic');
});

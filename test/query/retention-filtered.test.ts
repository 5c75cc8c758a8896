// Retention under filters from the day rollups (src/query/rollup/retention.ts filteredCells): equal to the
// raw path under filters on one family, on both, on the page or an event beside one or both, for two selections,
// over whole days, a range through the end of today, a partial first day and up to now, by week and month;
// kept while the range has nothing to add, recounted with late events; what the rows cannot take (a trait,
// a prop, an excluded page, a page and an event together) is left to the raw path.
import t, { type Test } from 'tap';
import { buildRollups, rollupScope, send, filterOf, mostCommon, seededSite } from './reference.ts';
import type { Scope } from '../../src/query/filters.ts';
import type { Filter } from '../../src/query/params.ts';
import { rawRetentionCells, shapeCohorts } from '../../src/query/retention.ts';
import { rollupRetentionCells } from '../../src/query/rollup/retention.ts';
import { selOf } from '../../src/query/rollup/eligible.ts';

const DAY = 86_400_000;
t.setTimeout(600_000);
// Eleven weeks over three months, so that cohorts have several periods either way.
const { s, site, owner, sql, today, start, events } = await seededSite(t, 76, { prefix: 'r', visitors: 120, seed: 11 });
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const f = filterOf;
const top = (column: string) => mostCommon(sql, column);
const [browser, channel] = [await top('browser'), await top('channel')];
const answered: Filter[][] = [
  [f('country', 'GB')],
  [f('country', 'GB', true)],
  [f('channel', channel)],
  [f('browser', browser), f('channel', channel)],
  [f('page', '/pricing')],
  [f('event', 'signup'), f('country', 'GB')],
  // a page or an event beside both families' filters: the per-pair page or name rows (0094)
  [f('page', '/pricing'), f('country', 'GB'), f('channel', channel)],
  [f('event', 'signup'), f('browser', browser), f('channel', channel)],
];
const ranges = (): [string, number, number][] => [
  ['90 days through today', today + DAY - 90 * DAY, today + DAY],
  ['whole days', start, today],
  ['a partial first day', start + 5 * DAY + 7 * 3_600_000, today],
  ['up to now', start + 10 * DAY, Date.now()],
];
const selections = [
  ['human', 'production'],
  ['all', 'all'],
] as const;
const described = (scope: Scope, interval: string) =>
  `${scope.filters.map((x) => `${x.dimension}${x.exclude ? '!=' : '='}${x.value}`).join(' & ')} ` +
  `${scope.traffic}/${scope.environment} ${scope.range.from.toISOString().slice(0, 13)}..` +
  `${scope.range.to.toISOString().slice(0, 13)} by ${interval}`;

/** Every filter set, range, selection and interval: the rollups answer, as the raw path does. */
async function compare(t: Test, when: string) {
  for (const filters of answered)
    for (const [, from, to] of ranges())
      for (const [traffic, environment] of selections)
        for (const interval of ['week', 'month'] as const) {
          const scope = { ...rollupScope(from, to, traffic, environment), filters };
          const label = `${when}: ${described(scope, interval)}`;
          const cells = await rollupRetentionCells(sql, scope, interval);
          t.ok(cells, `the rollups answer: ${label}`);
          t.same(cells, [...(await rawRetentionCells(sql, scope, interval))], label);
        }
}

t.test('equal to the raw path under filters', async (t) => {
  await compare(t, 'built');
  const visitors = await sql<{ n: number }[]>`select count(distinct visitor_id)::int as n from events`;
  t.ok(visitors[0]!.n > 100, 'the cohorts are not trivial');
});

t.test('kept while the range has nothing to add, and the kept cells are the answer', async (t) => {
  const scope = { ...rollupScope(start, today, 'human', 'production'), filters: [f('country', 'GB')] };
  const first = await rollupRetentionCells(sql, scope, 'week');
  const kind = `retention:week:dim_visitors:${JSON.stringify([['country', false, 'GB']])}`;
  const kept = await sql<{ kind: string }[]>`
    select kind from rollup_range_values where project_id = 'site' and kind = ${kind}
      and from_day = ${dayOf(start)}::date and to_day = ${dayOf(today)}::date and sel = ${selOf('human', 'production')}`;
  t.equal(kept.length, 1, 'kept, named by the family and the filters');
  // A kept value that is not what the rows say would be read back as it is.
  await sql`update rollup_range_values set value = '[]'::jsonb where project_id = 'site' and kind = ${kind}`;
  t.same(await rollupRetentionCells(sql, scope, 'week'), [], 'the second read is the kept value');
  await sql`delete from rollup_range_values where project_id = 'site' and kind = ${kind}`;
  t.same(await rollupRetentionCells(sql, scope, 'week'), first, 'counted again once dropped');
});

t.test('late events are added, not kept', async (t) => {
  // A new British visitor three days ago and an old one coming back yesterday: a new cohort, and a
  // period more for an earlier one.
  const gb = events.find(
    (e) => e.country === 'GB' && !e.bot && !e.internal && !e.localhost && e.ts < start + 20 * DAY,
  )!;
  const late = [
    { ...gb, id: 'late1', visitor: 'late-new', session: 'late-new', ts: today - 3 * DAY + 3_600_000, name: 'pageview' },
    { ...gb, id: 'late2', session: 'late-back', ts: today - DAY + 3_600_000, name: 'pageview' },
  ];
  await send(s, site.secretKey, late, owner.cookie);
  const marked = await sql`select 1 from rollup_stale_days where project_id = 'site' and event_id like 'late%'`;
  t.equal(marked.length, 2, 'the late events are marked, not built');
  await compare(t, 'late');
  const scope = { ...rollupScope(start, today, 'human', 'production'), filters: [f('country', 'GB')] };
  const cells = (await rollupRetentionCells(sql, scope, 'week'))!;
  const before = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_range_values where kind like 'retention:week:%'`;
  t.same(await rollupRetentionCells(sql, scope, 'week'), cells, 'read again');
  const after = await sql<{ n: number }[]>`
    select count(*)::int as n from rollup_range_values where kind like 'retention:week:%'`;
  t.equal(after[0]!.n, before[0]!.n, 'nothing kept while late events are added');
  await buildRollups(s);
  await compare(t, 'rebuilt');
});

t.test('filters the rows cannot take are left to the raw path', async (t) => {
  for (const filters of [
    [f('trait:tier', 'gold')],
    [f('prop:plan', 'pro')],
    [f('page', '/pricing', true)],
    [f('page', '/pricing'), f('event', 'signup')],
  ]) {
    const scope = { ...rollupScope(start, today, 'human', 'production'), filters };
    t.equal(await rollupRetentionCells(sql, scope, 'week'), null, JSON.stringify(filters));
  }
});

t.test('through the API', async (t) => {
  const iso = (ms: number) => new Date(ms).toISOString();
  const [from, to] = [today + DAY - 90 * DAY, today + DAY];
  for (const interval of ['week', 'month'] as const) {
    const res = await s.request(
      'GET',
      `/v2/projects/site/retention?interval=${interval}&from=${iso(from)}&to=${iso(to)}&filter[browser]=${encodeURIComponent(browser)}&filter[channel]=${encodeURIComponent(channel)}`,
      owner,
    );
    t.equal(res.status, 200);
    const scope = {
      ...rollupScope(from, to, 'human', 'production'),
      filters: [f('browser', browser), f('channel', channel)],
    };
    const raw = shapeCohorts([...(await rawRetentionCells(sql, scope, interval))], new Date(to), interval);
    t.same(res.body.data, raw, `by ${interval}`);
    t.ok(raw.length > 1, `several cohorts by ${interval}`);
  }
});

// The pageviews and events per value kept with the distinct visitors of a filtered breakdown
// (src/query/rollup/value-rows.ts): counted in the visitors' pass, kept per range, read back without a
// row of the rolled days; over settled and recent days, the settled days' sums plus the recent days'
// rows; a value kept without them is counted again. Every answer equal to the raw path's.
import t, { type Test } from 'tap';
import {
  buildRollups,
  rollupScope,
  sameAsRaw,
  send,
  type Sent,
  filterOf,
  mostCommon,
  seededSite,
} from './reference.ts';
import { dimensionKey, parseMetricList } from '../../src/query/breakdown.ts';
import type { Scope } from '../../src/query/filters.ts';
import { buildDay } from '../../src/query/rollup/builder.ts';
import { rollupDimensionGroups } from '../../src/query/rollup/dims.ts';
import { rollupEventGroups } from '../../src/query/rollup/props.ts';
import { rollupFilteredPageGroups } from '../../src/query/rollup/set-values.ts';

const DAY = 86_400_000;
const MIN = 60_000;
t.setTimeout(600_000);
const { s, site, owner, sql, today, start, events } = await seededSite(t, 10, { prefix: 'v', visitors: 90, seed: 13 });
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const f = filterOf;
const top = (column: string) => mostCommon(sql, column);
const channel = await top('channel');
const values = parseMetricList('visitors,pageviews,events', []);
// One read of each kind of value rows: a family's page rows, the crossed name rows, a family's own rows.
const reads = [
  {
    what: 'pages under country=GB',
    filters: [f('country', 'GB')],
    key: sql`e.path`,
    read: (scope: Scope) => rollupFilteredPageGroups(sql, scope, values),
  },
  {
    what: 'events under country!=GB and a channel',
    filters: [f('country', 'GB', true), f('channel', channel)],
    key: sql`e.name`,
    read: (scope: Scope) => rollupEventGroups(sql, scope, values),
  },
  {
    what: 'browsers under country=GB',
    filters: [f('country', 'GB')],
    key: dimensionKey(sql, 'browser'),
    read: (scope: Scope) => rollupDimensionGroups(sql, scope, 'browser', values),
  },
];
const kinds = ['page:%', 'event:%', '%:browser:%'];

/** Each read over the range, twice (counted, then kept), against the raw path. */
async function compare(t: Test, from: number, to: number, when: string) {
  for (const r of reads) {
    const scope = { ...rollupScope(from, to, 'human', 'production'), filters: r.filters };
    for (const turn of ['counted', 'kept'])
      await sameAsRaw(t, sql, scope, r.key, values, await r.read(scope), `${when}, ${turn}: ${r.what}`);
  }
}

/** The reads' values kept over [from, to): the range's own, or with `without`, those over its days but
 *  the ones named (range-values.ts keptOverRolled keeps the settled days' so). */
const keptOf = (from: number, to: number, without?: string) =>
  sql<{ kind: string; value: { sums?: { values: string[]; pageviews: number[]; events: number[] } } }[]>`
    select kind, value from rollup_range_values
    where project_id = 'site' and from_day = ${dayOf(from)}::date and to_day = ${dayOf(to)}::date
      and kind like any(${kinds}::text[])
      and ${without ? sql`kind like ${`%-without:${without}`}` : sql`kind not like '%-without:%'`}`;
const withoutSums = (from: number, to: number, without?: string) => sql`
  update rollup_range_values set value = value - 'sums'
  where project_id = 'site' and from_day = ${dayOf(from)}::date and to_day = ${dayOf(to)}::date
    and kind like any(${kinds}::text[])
    and ${without ? sql`kind like ${`%-without:${without}`}` : sql`kind not like '%-without:%'`}`;

t.test('kept with the visitors and read back from them', async (t) => {
  await compare(t, start, today, 'whole days');
  const kept = await keptOf(start, today);
  t.equal(kept.length, reads.length, 'one kept value a read');
  for (const k of kept) {
    const sums = k.value.sums;
    t.ok(sums && sums.values.length > 0 && sums.pageviews.length === sums.values.length, `${k.kind}: with its sums`);
  }
  // A kept sum that is not what the rows say is read back as it is: the warm read sums no row.
  const scope = { ...rollupScope(start, today, 'human', 'production'), filters: reads[0]!.filters };
  const page = kept.find((k) => k.kind.startsWith('page:'))!;
  const path = page.value.sums!.values[0]!;
  await sql`
    update rollup_range_values set value = jsonb_set(value, '{sums,pageviews,0}', '1234567')
    where project_id = 'site' and kind = ${page.kind} and from_day = ${dayOf(start)}::date`;
  const rows = await sql<{ key: string; values: number[] }[]>`${(await reads[0]!.read(scope))!.grouped}`;
  t.equal(rows.find((r) => r.key === path)?.values[1], 1_234_567, 'the second read is the kept sums');
  // Kept without sums (as stored before they were kept): counted again, and kept with them.
  t.equal((await withoutSums(start, today)).count, reads.length, 'sums taken out');
  await compare(t, start, today, 'kept without sums');
  for (const k of await keptOf(start, today)) t.ok(k.value.sums, `${k.kind}: counted again with its sums`);
});

t.test('over settled and recent days: the settled sums plus the recent rows', async (t) => {
  const [from, to] = [start + DAY, today + DAY];
  await compare(t, from, to, 'through today');
  const recent = `${dayOf(today - DAY)},${dayOf(today)}`;
  const settled = await keptOf(from, to, recent);
  t.equal(settled.length, reads.length, 'the settled days kept beside the range');
  // Today rebuilt: the range's value is lost, the settled days' is not; the read adds the recent rows.
  t.equal(await buildDay(sql, 'site', dayOf(today)), 'built');
  await compare(t, from, to, 'today rebuilt');
  // A settled value kept without sums: its days summed once, then the recent rows added.
  t.equal((await withoutSums(from, to, recent)).count, reads.length, 'sums taken out of the settled values');
  t.equal(await buildDay(sql, 'site', dayOf(today)), 'built');
  await compare(t, from, to, 'today rebuilt over settled days kept without sums');
  for (const k of await keptOf(from, to)) t.ok(k.value.sums, `${k.kind}: with its sums`);
});

t.test('late events are added to the kept sums per read', async (t) => {
  const gb = events.find((e) => e.country === 'GB' && !e.bot && !e.internal && !e.localhost)!;
  const late: Sent[] = [
    { ...gb, id: 'late1', ts: today - 3 * DAY + 3_600_000, name: 'pageview', path: '/late-page' },
    { ...gb, id: 'late2', ts: today - 3 * DAY + 3_600_000 + MIN, name: 'signup', path: '/late-page' },
    { ...gb, id: 'late3', session: 'late-other', ts: today - 4 * DAY + 3_600_000, name: 'pageview' },
  ];
  await send(s, site.secretKey, late, owner.cookie);
  const marked = await sql`select 1 from rollup_stale_days where project_id = 'site' and event_id like 'late%'`;
  t.equal(marked.length, late.length, 'the late events are marked, not built');
  await compare(t, start, today, 'late');
  await buildRollups(s);
  await compare(t, start, today, 'folded');
});

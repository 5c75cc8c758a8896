// Breakdown rows (metrics.ts groupedSql's shape) from rollup rows that carry a value `k`, pageviews,
// events and an array of visitor hashes: the dimension rollups (dims.ts) and the prop rollups
// (props.ts). The distinct visitors per value, the costly part (unnesting and de-duplicating every hash
// of the range), are counted once per range, selection and question over the rolled days and kept in
// rollup_range_values, as the page breakdown keeps its visitors per page; the pageviews and events per
// value are summed in the same pass and kept beside them, so a warm read touches no row of the rolled
// days (at 10M events, summing them per read cost the page panel 0.15–0.35 s a read).
// What a read adds to the rolled days (a raw part, late events: segments.ts) adds, per value, its
// (value, visitor) pairs that no rolled row holds, so a trickle of late events or today read from events
// does not send the whole range's hashes back through a distinct; and so do yesterday's and today's rows
// after a rebuild, to the count kept over the days before them.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Metric } from '../metrics.ts';
import { keptOverRolled } from './range-values.ts';
import { addSums, rowSums, type ValueSums } from './value-sums.ts';
import { filtersSql, type Scope } from '../filters.ts';
import { addedEventsSql, hasRawPart, type Plan } from './segments.ts';

/** The metrics these rows carry. */
export const VALUE_ROW_METRICS = new Set(['visitors', 'pageviews', 'events']);

/**
 * Rows of one side of a read: `rows` (k, day, pageviews, events, visitors) under the range and selection,
 * and `base` (day, visitors), whose distinct hashes are the share's denominator (every visitor in scope,
 * whether or not the value is null). Every hash of `rows` is one of `base`'s. Rows grouped from events
 * have no day (null).
 */
export type ValueRows = { rows: Fragment; base: Fragment };

/**
 * Rows kept in the count over the rolled days though no day holds them (their `day` is null), valid while
 * `print` (a digest of what they depend on beyond the days' builds) is unchanged: the split sessions of an
 * entry page breakdown under filters, keyed by their pages now (set-values.ts).
 */
export type KeptBeside = ValueRows & { print: string };

/**
 * Late days whose rows are not patched event by event (the entry and exit page rows per set are keyed by
 * each session's page, which a late event can move): `visitors`, the ids of the visitors whose sessions
 * the late days' marks and lists name (no other visitor's pairs changed); `now`, their (k, h) pairs as
 * they are over the read's range. The rolled rows count those visitors as counted: the count is corrected
 * for them alone (lateFixed), and the added part leaves them out.
 */
export type LateVisitors = { visitors: Fragment; now: (ids: string[]) => Fragment };

/**
 * The grouped rows of the rolled days' rows (`rowsOf` the days) plus, when the plan adds anything to them
 * (hasRawPart), the added rows; `beside`, rows counted with the rolled days' and kept with them. Wrapped in
 * an object: a fragment is a thenable, which an async function would run instead of return.
 */
export async function valueRowGroups(
  sql: Sql,
  project: string,
  plan: Plan,
  question: string,
  rowsOf: (days: string[]) => ValueRows,
  added: ValueRows | null,
  metrics: Metric[],
  beside?: KeptBeside,
  late?: LateVisitors,
): Promise<{ grouped: Fragment }> {
  const withBeside = (side: ValueRows): ValueRows =>
    beside
      ? { rows: sql`${side.rows} union all ${beside.rows}`, base: sql`${side.base} union all ${beside.base}` }
      : side;
  const print = beside?.print ?? '';
  // A lost count over settled and recent days is the settled days' (kept) plus the recent days' rows
  // added like late events: their pairs that no settled row holds (range-values.ts keptOverRolled). The
  // rows beside go with the recent days': the settled count is of the days alone (a null day is not
  // before any), so a new print recounts only what the recent days add.
  const kept = await keptOverRolled<KeptValues>(
    sql,
    project,
    plan,
    beside ? `${question}:beside` : question,
    {
      both: async (days, since) => {
        const { all, settled } = await valueVisitors(sql, withBeside(rowsOf(days)), since);
        return { all: { ...all, print }, settled };
      },
      add: async (settled, split) => {
        const recent = withBeside(rowsOf(split.recent));
        const counted = await withAdded(
          sql,
          project,
          { ...plan, rolled: split.settled },
          settled,
          rowsOf(split.settled),
          recent,
        );
        // A settled value kept before the sums were: summed now, once.
        const before = settled.sums ?? (await rowSums(sql, rowsOf(split.settled).rows));
        return { ...counted, sums: addSums(before, await rowSums(sql, recent.rows)), print };
      },
    },
    (value) => value.sums !== undefined && (!beside || value.print === print),
  );
  const rolled = withBeside(rowsOf(plan.rolled));
  const fixed = late && (await lateFixed(sql, project, plan, kept, (days) => rowsOf(days).rows, beside?.rows, late));
  const counted = fixed ? fixed.visitors : kept;
  const visitors = added ? await withAdded(sql, project, plan, counted, rolled, added, fixed?.hashes) : counted;
  const value = (m: Metric): Fragment =>
    m.name === 'visitors' ? sql`v.visitors::float8` : sql`c.${sql(m.name)}::float8`;
  const values = metrics.map(value).reduce((a, b) => sql`${a}, ${b}`);
  const v = sql`select k, visitors from unnest(${visitors.values}::text[], ${visitors.visitors}::int[]) as v(k, visitors)`;
  // Visitors alone need no row: every value with a row has a visitor, so the counts hold every key.
  if (metrics.every((m) => m.name === 'visitors'))
    return {
      grouped: sql`
      select v.k as key, v.visitors, ${visitors.all}::int as all_visitors, array[${values}]::float8[] as values
      from (${v}) v`,
    };
  // The kept value always has its sums (`fresh` above refuses one without); were it ever to lack them,
  // the rows summed now are the same answer.
  const { values: ks, pageviews, events } = kept.sums ?? (await rowSums(sql, rolled.rows));
  const sums = sql`
    select s.k, s.pageviews, s.events
    from unnest(${ks}::text[], ${pageviews}::float8[], ${events}::float8[]) as s(k, pageviews, events)`;
  const rows = added ? sql`${sums} union all select d.k, d.pageviews, d.events from (${added.rows}) d` : sums;
  return {
    grouped: sql`
    with c as (
      select d.k, sum(d.pageviews) as pageviews, sum(d.events) as events from (${rows}) d where d.k is not null group by 1
    ), v as (${v})
    select v.k as key, v.visitors, ${visitors.all}::int as all_visitors, array[${values}]::float8[] as values
    from v join c on c.k = v.k`,
  };
}

/**
 * valueRowGroups for rows that are their own base (every row counts toward the share): the added part is
 * the plan's added events grouped by `k` under the scope's filters, as the rolled rows were built.
 */
export function ownBaseGroups(
  sql: Sql,
  scope: Scope,
  plan: Plan,
  question: string,
  rowsOf: (days: string[]) => Fragment,
  k: Fragment,
  metrics: Metric[],
): Promise<{ grouped: Fragment }> {
  const added = hasRawPart(plan)
    ? rawValueRowsSql(sql, k, sql`${addedEventsSql(sql, scope, plan)} e`, filtersSql(sql, scope.filters))
    : null;
  const own = (days: string[]) => {
    const rows = rowsOf(days);
    return { rows, base: rows };
  };
  return valueRowGroups(sql, scope.projectIds[0]!, plan, question, own, added && { rows: added, base: added }, metrics);
}

/** Rows (k, pageviews, events, visitors) grouped from events as the value builds group them: the
 *  non-engagement events `from` holds (aliased `e`) under `where`, by the value `k`. */
export function rawValueRowsSql(sql: Sql, k: Fragment, from: Fragment, where: Fragment): Fragment {
  return sql`
    select ${k} as k, null::date as day, count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
    from ${from} where (${where}) and e.name <> 'engagement' group by 1`;
}

/** The class values below `size` that have bit `bit` set: a selection as a list the planner can estimate
 *  (a bit test on a column is an opaque filter to it, and it then plans for a handful of rows). */
export function selectionSql(sql: Sql, days: { sel: number }, alias: string): Fragment {
  const classes = (bit: number, size: number) =>
    Array.from({ length: size }, (_, i) => i).filter((i) => (i >> bit) & 1);
  return sql`${sql(alias)}.tm = any(${classes(Math.floor(days.sel / 3), 16)}::smallint[])
    and ${sql(alias)}.em = any(${classes(days.sel % 3, 8)}::smallint[])`;
}

/** Parallel arrays, not an object keyed by value: a value is any text a client sent (`__proto__` too). */
export type ValueVisitors = { all: number; values: string[]; visitors: number[] };

/** What valueRowGroups keeps per range: `sums` is absent from values kept before it was (counted again);
 *  `print`, that of the rows kept beside the days'. */
type KeptValues = ValueVisitors & { sums?: ValueSums; print?: string };

/** The distinct visitors and the sums per value over the rows, and over their rows of days before `since`
 *  alone, in one pass (range-values.ts keptOverRolled keeps both). */
async function valueVisitors(sql: Sql, side: ValueRows, since: string): Promise<{ all: Counted; settled: Counted }> {
  // count(distinct) sorts each value's hashes as bare 64-bit datums; grouping the (value, hash) pairs first
  // (a hash aggregate of a row a pair, then a count per value) took twice as long: this statement of a
  // first filtered breakdown at 10M events, 0.49 s against 0.22 s for 288k hashes. Rows that are their
  // own base are read once, the values and the total as one rollup (its row with the value null and
  // grouping 0 is the null value's, which no breakdown shows): a fifth less again over the crossed rows.
  // A row's counts are summed at its first hash (every row holds one: each was grouped from events, and
  // folds only add hashes), so the sums take no second pass over the rows.
  type Found = { k: string | null; total: boolean; visitors: number; settled: number } & Record<
    'pageviews' | 'events' | 'settled_pageviews' | 'settled_events',
    number
  >;
  const sum = (column: string, settled: boolean) =>
    sql`coalesce(sum(d.${sql(column)}) filter (where u.n = 1 ${settled ? sql`and d.day < ${since}::date` : sql``}), 0)::float8`;
  const counts = sql`count(distinct u.h)::int as visitors,
      count(distinct u.h) filter (where d.day < ${since}::date)::int as settled,
      ${sum('pageviews', false)} as pageviews, ${sum('events', false)} as events,
      ${sum('pageviews', true)} as settled_pageviews, ${sum('events', true)} as settled_events`;
  const found =
    side.base === side.rows
      ? await sql<Found[]>`
    select d.k, grouping(d.k) = 1 as total, ${counts}
    from (${side.rows}) d, unnest(d.visitors) with ordinality as u(h, n)
    group by rollup (d.k)`
      : await sql<Found[]>`
    select d.k, false as total, ${counts}
    from (${side.rows}) d, unnest(d.visitors) with ordinality as u(h, n)
    where d.k is not null group by d.k
    union all
    select null, true, count(distinct h)::int, count(distinct h) filter (where b.day < ${since}::date)::int, 0, 0, 0, 0
    from (${side.base}) b, unnest(b.visitors) as h`;
  const settled = found
    .filter((r) => r.total || r.settled > 0)
    .map((r) => ({ ...r, visitors: r.settled, pageviews: r.settled_pageviews, events: r.settled_events }));
  return { all: fromRows(found), settled: fromRows(settled) };
}

type Counted = ValueVisitors & { sums: ValueSums };

/** `overlapUpTo`: past this many known visitors on one day, a row of that day is unnested without first
 *  asking whether it holds one of them (`&&` compares every pair of hashes). A setting so that tests can
 *  take either way. */
export const VALUE_ROW_TUNING = { overlapUpTo: 64 };

/**
 * The rolled days' counts plus, per value, the added (value, visitor) pairs that no rolled row holds.
 * A visitor the rolled days never saw (rollup_day_visitors, probed through its hash index) adds to every
 * value it has. Only the others (`known`, with the days they were seen) are looked for, in the rows of
 * their days and of the added values; a row is unnested only when it holds one of that day's known
 * visitors (while a day has few), and each hash is probed in the known set. Unnesting every row of the
 * range instead cost 0.2–0.3 s at 10M for 21 known visitors.
 * The hashes go between the statements as text (they are 64-bit) and as parameters, so each statement is
 * planned for the actual sets: planned over CTEs, the probes became nested loops of up to 30 s.
 */
export async function withAdded(
  sql: Sql,
  project: string,
  plan: { rolled: string[]; sel: number },
  kept: ValueVisitors,
  rolled: ValueRows,
  added: ValueRows,
  skip?: Set<string>,
): Promise<ValueVisitors> {
  const [found] = await sql<{ pairs: [string, string][]; base: string[] }[]>`
    select
      coalesce((select json_agg(json_build_array(k, h::text)) from (
        select distinct d.k, h from (${added.rows}) d, unnest(d.visitors) as h where d.k is not null) x), '[]') as pairs,
      coalesce((select array_agg(distinct h::text) from (${added.base}) b, unnest(b.visitors) as h), '{}') as base`;
  const { pairs, base } = found!;
  const { byDay, byHash } = await seenOn(sql, project, plan.sel, base, plan.rolled);
  const had = new Set<string>(); // `${k}\n${h}` (a hash holds no line break)
  const hadBase = new Set<string>();
  if (byDay.size > 0) {
    const hits = (rows: Fragment, k: Fragment, values: Fragment) => heldSql(sql, { byDay, byHash }, rows, k, values);
    const ks = [...new Set(pairs.map(([k]) => k))];
    const same = rolled.base === rolled.rows;
    const found = await sql<{ k: string | null; h: string }[]>`
      ${hits(rolled.rows, sql`d.k`, same ? sql`true` : sql`d.k = any(${ks}::text[])`)}
      ${same ? sql`` : sql`union all ${hits(rolled.base, sql`null::text`, sql`true`)}`}`;
    for (const r of found) {
      hadBase.add(r.h);
      if (r.k !== null) had.add(`${r.k}\n${r.h}`);
    }
  }
  const out = new Map(kept.values.map((k, i) => [k, kept.visitors[i]!]));
  for (const [k, h] of pairs) if (!had.has(`${k}\n${h}`) && !skip?.has(h)) out.set(k, (out.get(k) ?? 0) + 1);
  const all = kept.all + base.filter((h) => !hadBase.has(h)).length;
  return { all, values: [...out.keys()], visitors: [...out.values()] };
}

/** The distinct (k, h) pairs of `rows` (k, day, …, visitors) whose hash is one of the seen ones, looked for
 *  in the rows of the days each was seen on (seenOn): a row is unnested only when it holds one of its
 *  day's hashes, while each day has few. */
function heldSql(
  sql: Sql,
  seen: { byHash: Map<string, string[]>; byDay: Map<string, string[]> },
  rows: Fragment,
  k: Fragment,
  values: Fragment,
): Fragment {
  const { byDay, byHash } = seen;
  const overlap = Math.max(...[...byDay.values()].map((hs) => hs.length)) <= VALUE_ROW_TUNING.overlapUpTo;
  const kd = sql`select day::date, hs::bigint[] from unnest(${[...byDay.keys()]}::text[], ${[...byDay.values()].map((hs) => `{${hs.join(',')}}`)}::text[]) as kd(day, hs)`;
  return sql`
    select distinct ${k} as k, h::text as h from (${kd}) kd join (${rows}) d on d.day = kd.day, unnest(d.visitors) as h
    where ${values} ${overlap ? sql`and d.visitors && kd.hs` : sql``} and h = any(${[...byHash.keys()]}::bigint[])`;
}

/**
 * The kept counts with the late visitors' pairs as they are (LateVisitors). Every other day's rows are
 * true, so, per value, a pair the late days' rows or the rows kept beside them held that is not true now
 * goes, and a true pair they did not hold comes unless another rolled day's row holds it (looked for on the
 * days its visitor was seen on, as withAdded does). The total is the base's, which late events only add to
 * (the added part's base carries them). `hashes`: theirs, as text, for the added part to leave out.
 */
async function lateFixed(
  sql: Sql,
  project: string,
  plan: { rolled: string[]; late: string[]; sel: number },
  kept: ValueVisitors,
  rowsOf: (days: string[]) => Fragment,
  beside: Fragment | undefined,
  late: LateVisitors,
): Promise<{ visitors: ValueVisitors; hashes: Set<string> }> {
  const ids = (await sql<{ id: string }[]>`select distinct visitor_id as id from (${late.visitors}) v`).map(
    (r) => r.id,
  );
  if (ids.length === 0) return { visitors: kept, hashes: new Set() };
  const [found] = await sql<{ hashes: string[]; now: [string, string][] }[]>`
    select array(select distinct hashtextextended(v, 0)::text from unnest(${ids}::text[]) as v) as hashes,
      coalesce((select json_agg(json_build_array(k, h::text)) from (
        select distinct n.k, n.h from (${late.now(ids)}) n where n.k is not null) x), '[]') as now`;
  const hashes = found!.hashes;
  const held = await sql<{ k: string; h: string }[]>`
    select distinct d.k, h::text as h from (
      ${rowsOf(plan.late)} ${beside ? sql`union all ${beside}` : sql``}
    ) d, unnest(d.visitors) as h
    where d.k is not null and h = any(${hashes}::bigint[])`;
  const pair = (k: string, h: string) => `${k}\n${h}`; // a hash holds no line break
  const was = new Set(held.map((r) => pair(r.k, r.h)));
  const now = new Set(found!.now.map(([k, h]) => pair(k, h)));
  const out = new Map(kept.values.map((k, i) => [k, kept.visitors[i]!]));
  for (const r of held) if (!now.has(pair(r.k, r.h))) out.set(r.k, (out.get(r.k) ?? 0) - 1);
  const come = found!.now.filter(([k, h]) => !was.has(pair(k, h)));
  const others = plan.rolled.filter((d) => !plan.late.includes(d));
  const seen = await seenOn(sql, project, plan.sel, [...new Set(come.map(([, h]) => h))], others);
  const there = new Set<string>();
  if (seen.byDay.size > 0) {
    const ks = [...new Set(come.map(([k]) => k))];
    const hits = heldSql(sql, seen, rowsOf(others), sql`d.k`, sql`d.k = any(${ks}::text[])`);
    for (const r of await sql<{ k: string; h: string }[]>`${hits}`) there.add(pair(r.k, r.h));
  }
  for (const [k, h] of come) if (!there.has(pair(k, h))) out.set(k, (out.get(k) ?? 0) + 1);
  const values = [...out.keys()].filter((k) => out.get(k)! > 0);
  return {
    visitors: { all: kept.all, values, visitors: values.map((k) => out.get(k)!) },
    hashes: new Set(hashes),
  };
}

/**
 * The days among `days` each of the hashes was seen on under the selection, by hash and by day: only
 * those visitors can be in those days' rows. rollup_day_visitors, probed through its hash index (0063).
 */
export async function seenOn(
  sql: Sql,
  project: string,
  sel: number,
  hashes: string[],
  days: string[],
): Promise<{ byHash: Map<string, string[]>; byDay: Map<string, string[]> }> {
  const out = { byHash: new Map<string, string[]>(), byDay: new Map<string, string[]>() };
  if (hashes.length === 0) return out;
  const seen = await sql<{ h: string; day: string }[]>`
    select r.visitor_hash::text as h, to_char(r.day, 'YYYY-MM-DD') as day from rollup_day_visitors r
    where r.project_id = ${project} and r.visitor_hash = any(${hashes}::bigint[]) and r.day = any(${days}::date[])
      and r.sel_mask & ${1 << sel} <> 0`;
  const push = (m: Map<string, string[]>, key: string, value: string) => {
    const list = m.get(key);
    if (list) list.push(value);
    else m.set(key, [value]);
  };
  for (const r of seen) (push(out.byHash, r.h, r.day), push(out.byDay, r.day, r.h));
  return out;
}

/** The total and each non-null value's count (a null value is no breakdown row). */
function fromRows(
  found: { k: string | null; total: boolean; visitors: number; pageviews: number; events: number }[],
): Counted {
  const out: Counted = { all: 0, values: [], visitors: [], sums: { values: [], pageviews: [], events: [] } };
  for (const r of found) {
    if (r.total) out.all = r.visitors;
    else if (r.k !== null) {
      out.values.push(r.k);
      out.visitors.push(r.visitors);
      out.sums.values.push(r.k);
      out.sums.pageviews.push(r.pageviews);
      out.sums.events.push(r.events);
    }
  }
  return out;
}

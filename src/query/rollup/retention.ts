// Retention cells from the day rollups: a visitor's periods are the weeks or months of their active
// days. The cells over the range's closed days are computed once from rollup_day_visitors and kept
// (range-values.ts); what changes them after that is added at read time, as a difference over the few
// visitors it touches: today's visitors (from its rows, which are rebuilt as it goes, or from its events
// when it is read from events) and the visitors of events marked late into a built day (late.ts), each of
// whom may gain a period, or an earlier cohort. Their cells are counted from the closed days' rows alone
// (what the kept cells hold) and again with today and the late events, and the difference is added.
// Yesterday, rebuilt every few minutes under late events, is added to the cells kept over the days before
// it the same way when the kept cells over all the closed days are lost (range-values.ts keptOverRolled).
// Under filters, the value rows under them hold the visitors (filteredCells), and their cells are counted
// per read unless the range adds nothing to its rows.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { filtersSql, type Scope } from '../filters.ts';
import { nextDay } from './build.ts';
import { keptOverRolled, rangeValue } from './range-values.ts';
import { lateEventsSql } from './late.ts';
import { filteredRows } from './dims.ts';
import { addedEventsSql, hasRawPart, planRange, rawWhereSql, type Plan } from './segments.ts';

export type CellRow = { cohort: Date; period: Date; visitors: number };
type Stored = { cohort: string; period: string; visitors: number };

const DAY = 86_400_000;

/** Null when the rollups cannot answer: more than one project, filters they do not hold (filteredCells),
 *  or without filters a part of the range before today read from events (a partial day, a pending,
 *  unbuilt or irregular day). */
export async function rollupRetentionCells(
  sql: Sql,
  scope: Scope,
  interval: 'week' | 'month',
): Promise<CellRow[] | null> {
  if (scope.projectIds.length !== 1) return null;
  if (scope.filters.length > 0) return filteredCells(sql, scope, interval);
  const plan = await planRange(sql, scope, { patch: true });
  const todayMs = Math.floor(Date.now() / DAY) * DAY;
  // Today may be read from events (too many marks, a whole-day mark, a range that ends inside it): its
  // visitors are then taken from there, as the late events' are. Any other day must be rolled.
  if (!plan || plan.raw.some((piece) => piece.from.getTime() < todayMs)) return null;
  const project = scope.projectIds[0]!;
  const today = new Date(todayMs).toISOString().slice(0, 10);
  const closedTo = plan.to > today ? today : plan.to;
  // Every day before today is rolled (checked above): the closed days are [from, closedTo).
  const closed = { from: plan.from, to: closedTo, sel: plan.sel, rolled: daysOf(plan.from, closedTo) };
  const closedCells = async () =>
    plan.from < closedTo
      ? keptOverRolled(sql, project, closed, `retention:${interval}`, {
          count: (days) => count(sql, project, { from: days[0]!, to: nextDay(days.at(-1)!), sel: plan.sel }, interval),
          add: async (settled, { recent }) =>
            added(
              settled,
              await touched(sql, scope, plan, interval, { keptTo: recent[0]!, to: closedTo, events: false }),
            ),
        })
      : [];
  const withToday = async () =>
    added(
      await closedCells(),
      await touched(sql, scope, plan, interval, { keptTo: closedTo, to: plan.to, events: true }),
    );
  // Today rolled with no marks on any day of the range: the cells depend on the days' rows alone, so they
  // are kept too, under the range's largest build sequence, which a fold or rebuild of today moves (a hit
  // reads nothing else). Otherwise today's visitors are looked up in the closed days' rows on every read:
  // ~0.3 s at 10M events.
  const cells =
    plan.late.length > 0 || plan.raw.length > 0
      ? await withToday()
      : plan.to > today
        ? await rangeValue(sql, project, plan, `retention-through-today:${interval}`, withToday)
        : await closedCells();
  return asCells(cells);
}

const asCells = (cells: Stored[]): CellRow[] =>
  cells
    .filter((c) => c.visitors > 0)
    .sort((a, b) => a.cohort.localeCompare(b.cohort) || a.period.localeCompare(b.period))
    .map((c) => ({ cohort: new Date(c.cohort), period: new Date(c.period), visitors: c.visitors }));

/**
 * The cells under filters on the nineteen visitor-level and acquisition dimensions, and on the page or
 * the event beside one family's (dims.ts filteredRows): a visitor's periods are those of the days whose
 * rows under the filters hold their hash, with those of the range's added events (its raw part, today
 * read from events, the late events: segments.ts addedEventsSql) under the filters; their union is the
 * raw path's set of active periods, over the 64-bit hashes. Unlike the unfiltered cells, nothing is
 * looked up per visitor (the rows hold arrays of hashes, which no index reaches), so what changes is
 * recounted: the cells are kept while the range has no added part (a quiet site, a dashboard refreshed
 * between folds), under the range's largest build sequence; otherwise every read counts them.
 */
async function filteredCells(sql: Sql, scope: Scope, interval: 'week' | 'month'): Promise<CellRow[] | null> {
  const rows = filteredRows(sql, scope);
  const plan = rows && (await planRange(sql, scope, { patch: true }));
  if (!rows || !plan) return null;
  // Each visitor's periods as one bit string, bit i (from the right) for the i-th period of the range, and
  // the visitors counted per string: one hash aggregate of the hashes, where a distinct of (visitor,
  // period) pairs, their first period and a join took twice as long (device=mobile, 90 days at 1M events:
  // 127 against 173–210 ms for 69k hashes).
  const periods = periodsOf(scope.range, interval);
  const index = (day: Fragment) =>
    interval === 'week'
      ? sql`((${day}) - ${periods.first}::date) / 7`
      : sql`(extract(year from ${day})::int * 12 + extract(month from ${day})::int - ${periods.firstMonth})`;
  // The width is spelled out (a type modifier takes no parameter): a count of periods, never input.
  const bit = (day: Fragment) => sql`${sql.unsafe(`1::bit(${periods.count})`)} << ${index(day)}`;
  const count = async (): Promise<Stored[]> => {
    const added = hasRawPart(plan)
      ? sql`union all select hashtextextended(e.visitor_id, 0), ${bit(sql`(e.ts at time zone 'UTC')::date`)}
        from ${addedEventsSql(sql, scope, plan)} e where ${filtersSql(sql, scope.filters)} and e.name <> 'engagement'`
      : sql``;
    const masks = await sql<{ mask: string; visitors: number }[]>`
      select m.mask::text as mask, count(*)::int as visitors from (
        select a.h, bit_or(a.b) as mask from (
          select h, ${bit(sql`d.day`)} as b from (${rows.rowsOf(plan, sql`d.day`)}) d, unnest(d.visitors) as h
          ${added}
        ) a group by a.h
      ) m group by m.mask`;
    return cellsOfMasks(masks, periods);
  };
  const project = scope.projectIds[0]!;
  const cells = hasRawPart(plan)
    ? await count()
    : await rangeValue(sql, project, plan, `retention:${interval}:${rows.label}`, count);
  return asCells(cells);
}

type Periods = { first: string; firstMonth: number; count: number; starts: string[] };

/** The periods of a range: the first one's start (a day, and for months its year × 12 + month), how many
 *  there are (through the one holding the range's last instant), and each one's start as stored. */
function periodsOf(range: { from: Date; to: Date }, interval: 'week' | 'month'): Periods {
  const startOf = (ms: number) => {
    const d = new Date(Math.floor(ms / DAY) * DAY);
    return interval === 'month'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
      : d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY;
  };
  const first = new Date(startOf(range.from.getTime()));
  const last = startOf(range.to.getTime() - 1);
  const starts: string[] = [];
  for (let i = 0; ; i++) {
    const at =
      interval === 'month'
        ? Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + i, 1)
        : first.getTime() + i * 7 * DAY;
    if (at > last) break;
    starts.push(new Date(at).toISOString());
  }
  return {
    first: first.toISOString().slice(0, 10),
    firstMonth: first.getUTCFullYear() * 12 + first.getUTCMonth() + 1,
    count: starts.length,
    starts,
  };
}

/** The cells of visitors counted per bit string of their periods (bit i from the right: the i-th period):
 *  each counts in its lowest period's cohort, in every period it holds. */
function cellsOfMasks(masks: { mask: string; visitors: number }[], periods: Periods): Stored[] {
  const cells = new Map<string, Stored>();
  for (const { mask, visitors } of masks) {
    const held = [...mask].flatMap((b, i) => (b === '1' ? [mask.length - 1 - i] : [])).sort((a, b) => a - b);
    const cohort = periods.starts[held[0]!]!;
    for (const p of held) {
      const key = `${cohort}|${p}`;
      const cell = cells.get(key) ?? { cohort, period: periods.starts[p]!, visitors: 0 };
      cell.visitors += visitors;
      cells.set(key, cell);
    }
  }
  return [...cells.values()];
}

/** The cells with the differences added. */
function added(cells: Stored[], diff: Stored[]): Stored[] {
  const out = new Map(cells.map((c) => [`${c.cohort}|${c.period}`, { ...c }]));
  for (const d of diff) {
    const cell = out.get(`${d.cohort}|${d.period}`);
    if (cell) cell.visitors += d.visitors;
    else out.set(`${d.cohort}|${d.period}`, { ...d });
  }
  return [...out.values()];
}

function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d < to; d = nextDay(d)) out.push(d);
  return out;
}

/** The cells over [from, to) of the visitors active in the closed days' rows, under the selection. */
async function count(
  sql: Sql,
  project: string,
  days: { from: string; to: string; sel: number },
  interval: string,
): Promise<Stored[]> {
  const rows = await sql<{ cohort: Date; period: Date; visitors: number }[]>`
    with act as (
      select distinct visitor_hash, date_trunc(${interval}, day::timestamp) as period from rollup_day_visitors
      where project_id = ${project} and day >= ${days.from}::date and day < ${days.to}::date and sel_mask & ${1 << days.sel} <> 0
    ), firsts as (
      select visitor_hash, min(period) as cohort from act group by 1
    )
    select f.cohort at time zone 'UTC' as cohort, a.period at time zone 'UTC' as period, count(*)::int as visitors
    from firsts f join act a on a.visitor_hash = f.visitor_hash
    group by 1, 2 order by 1, 2`;
  return rows.map((r) => ({ cohort: r.cohort.toISOString(), period: r.period.toISOString(), visitors: r.visitors }));
}

/**
 * What the visitors active in [keptTo, to) change in the cells kept over [from, keptTo): per (cohort,
 * period), the cells of those visitors counted with their days in [keptTo, to), less their cells from the
 * days before alone (through rollup_day_visitors' (project_id, visitor_hash) index, 0063). With `events`,
 * the read's late events and raw part (today read from events) add their visitors too.
 */
async function touched(
  sql: Sql,
  scope: Scope,
  plan: Plan,
  interval: string,
  span: { keptTo: string; to: string; events: boolean },
): Promise<Stored[]> {
  const project = scope.projectIds[0]!;
  const bit = 1 << plan.sel;
  const period = (day: string) => sql`date_trunc(${interval}, ${sql.unsafe(day)}::timestamp)`;
  const late = span.events && plan.late.length > 0;
  const none = sql`select * from events where false`;
  const rows = await sql<{ cohort: Date; period: Date; visitors: number }[]>`
    with added as (
      select distinct hashtextextended(e.visitor_id, 0) as h, date_trunc(${interval}, e.ts at time zone 'UTC') as period
      from (${late ? lateEventsSql(sql, scope, plan) : none}) e
      where e.name <> 'engagement'
      union
      select distinct hashtextextended(e.visitor_id, 0), date_trunc(${interval}, e.ts at time zone 'UTC')
      from events e where ${span.events ? rawWhereSql(sql, scope, plan) : sql`false`} and e.name <> 'engagement'
      union
      select visitor_hash, ${period('day')} from rollup_day_visitors
      where project_id = ${project} and day >= ${span.keptTo}::date and day < ${span.to}::date and sel_mask & ${bit} <> 0
    ), who as (
      select distinct h from added
    ), before as (
      select distinct r.visitor_hash as h, ${period('r.day')} as period
      from who join rollup_day_visitors r on r.project_id = ${project} and r.visitor_hash = who.h
      where r.day >= ${plan.from}::date and r.day < ${span.keptTo}::date and r.sel_mask & ${bit} <> 0
    ), after as (
      select h, period from before union select h, period from added
    ), cells as (
      select c.cohort, b.period, -1 as n from before b join (select h, min(period) as cohort from before group by 1) c using (h)
      union all
      select c.cohort, a.period, 1 from after a join (select h, min(period) as cohort from after group by 1) c using (h)
    )
    select cohort at time zone 'UTC' as cohort, period at time zone 'UTC' as period, sum(n)::int as visitors
    from cells group by 1, 2 having sum(n) <> 0`;
  return rows.map((r) => ({ cohort: r.cohort.toISOString(), period: r.period.toISOString(), visitors: r.visitors }));
}

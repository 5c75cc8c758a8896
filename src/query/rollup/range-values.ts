// Values computed once per (project, range, selection, kind) from the day rows and stored in
// rollup_range_values with the range's max(build_seq): reused until a day of the range is rebuilt, or
// until the retention job drops it a week after it was computed. `fresh` may refuse a stored value that
// depends on more than the days' rows; the new one replaces it.
// Yesterday and today are rebuilt every few minutes under traffic (late events, today's own), which would
// make every value over a range holding them count again after each rebuild: seconds at 10M events for
// retention's cells or a filtered breakdown's visitors. keptOverRolled therefore keeps a second value over
// the range's settled days (those before yesterday, rebuilt only for events more than a day late) and
// counts a lost value as that one plus the difference the recent days make, over their visitors only.
// Sums need no such difference: settledSumsSql keeps them over the settled days alone and a read adds the
// recent days' rows.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { leftOut } from './segments.ts';

const DAY = 86_400_000;

/** `rolled`: the days of [from, to) the value was counted over, when not all of them (segments.ts). */
export type Days = { from: string; to: string; sel: number; rolled?: string[] };

export async function rangeValue<T>(
  sql: Sql,
  project: string,
  days: Days,
  kind: string,
  compute: () => Promise<T>,
  fresh: (value: T) => boolean = () => true,
): Promise<T> {
  const kept = await stored<T>(sql, project, days, kind);
  if (kept.value !== undefined && fresh(kept.value)) return kept.value;
  const value = await compute();
  await store(sql, project, days, kind, kept.seq, value);
  return value;
}

/** The kept value, if it is current, and the sequence a value counted now is to be stored with. */
async function stored<T>(sql: Sql, project: string, days: Days, kind: string): Promise<{ value?: T; seq: string }> {
  // The sequence is read before the value is computed: a build in between makes the stored value look
  // older than it is (recomputed next time), never newer.
  // Over the days counted only: a day left out (pending, rebuilt every pass under late events) does not
  // make the value look stale.
  const which = days.rolled
    ? sql`day = any(${days.rolled}::date[])`
    : sql`day >= ${days.from}::date and day < ${days.to}::date`;
  const [cur]: [{ seq: string }?] = await sql`
    select coalesce(max(build_seq), 0)::text as seq from rollup_days where project_id = ${project} and ${which}`;
  const [hit]: [{ value: T }?] = await sql`
    select value from rollup_range_values
    where project_id = ${project} and from_day = ${days.from}::date and to_day = ${days.to}::date and sel = ${days.sel}
      and kind = ${kind} and build_seq = ${cur!.seq}::bigint`;
  return hit ? { value: hit.value, seq: cur!.seq } : { seq: cur!.seq };
}

async function store<T>(sql: Sql, project: string, days: Days, kind: string, seq: string, value: T): Promise<void> {
  // Through the project row FOR KEY SHARE, as every writer of the project's rows: a project deleted
  // meanwhile (the builder counts kept values after its builds, whatever deletes the project) keeps none.
  await sql`
    insert into rollup_range_values (project_id, from_day, to_day, sel, kind, build_seq, value)
    select ${project}, ${days.from}::date, ${days.to}::date, ${days.sel}, ${kind}, ${seq}::bigint, ${sql.json(value as never)}
    from projects where id = ${project} for key share
    on conflict (project_id, from_day, to_day, sel, kind)
    do update set build_seq = excluded.build_seq, value = excluded.value, computed_at = excluded.computed_at`;
}

/** The rolled days of a range: `rolled` those counted, as UTC day strings. */
export type Rolled = { from: string; to: string; sel: number; rolled: string[] };

/**
 * How keptOverRolled counts a value: `add` the recent days to the value over the settled ones; and either
 * `count` it over some days, or, where one pass can, `both`: the value over all the days and over those
 * before `since` alone, which a first count keeps together so that a later rebuild of the recent days finds
 * the settled value already there.
 */
export type Counts<T> = {
  add: (settled: T, split: { settled: string[]; recent: string[] }) => Promise<T>;
} & (
  | { count: (rolled: string[]) => Promise<T> }
  | { both: (rolled: string[], since: string) => Promise<{ all: T; settled: T }> }
);

/**
 * The value over the range's rolled days, kept under `kind` (named by the days left out, when some are),
 * while `fresh` takes it.
 * On a miss, when the rolled days hold both settled and recent days (yesterday, today): the value over the
 * settled days alone, if kept, with the recent days added; otherwise counted, with the settled value kept
 * beside it (`both`, or a count of the settled days and the recent ones added).
 */
export async function keptOverRolled<T>(
  sql: Sql,
  project: string,
  days: Rolled,
  kind: string,
  counts: Counts<T>,
  fresh?: (value: T) => boolean,
): Promise<T> {
  const { settled, recent, since } = settledSplit(days.rolled);
  const count = async (rolled: string[]) =>
    'count' in counts ? counts.count(rolled) : (await counts.both(rolled, rolled[0]!)).all;
  return rangeValue(
    sql,
    project,
    days,
    keptName(days, days.rolled, kind),
    async () => {
      if (settled.length === 0 || recent.length === 0) return count(days.rolled);
      const settledDays = { ...days, rolled: settled };
      const name = keptName(days, settled, kind);
      const kept = await stored<T>(sql, project, settledDays, name);
      if (kept.value !== undefined) return counts.add(kept.value, { settled, recent });
      if ('both' in counts) {
        const both = await counts.both(days.rolled, since);
        await store(sql, project, settledDays, name, kept.seq, both.settled);
        return both.all;
      }
      const base = await count(settled);
      await store(sql, project, settledDays, name, kept.seq, base);
      return counts.add(base, { settled, recent });
    },
    fresh,
  );
}

/** The rolled days before yesterday (`settled`: rebuilt only for events more than a day late, `since` the
 *  first day that is not) and the rest (`recent`: yesterday and today, folded and rebuilt under traffic). */
export function settledSplit(rolled: string[]): { settled: string[]; recent: string[]; since: string } {
  const since = new Date((Math.floor(Date.now() / DAY) - 1) * DAY).toISOString().slice(0, 10);
  return { settled: rolled.filter((d) => d < since), recent: rolled.filter((d) => d >= since), since };
}

/**
 * A value over the range's settled days alone (settledSplit), kept under `kind` as keptOverRolled keeps
 * its settled value: for sums, which the recent days' rows then add to exactly. Null without settled days.
 */
async function settledValue<T>(
  sql: Sql,
  project: string,
  days: Rolled,
  kind: string,
  compute: (settled: string[]) => Promise<T>,
): Promise<{ value: T; recent: string[] } | null> {
  const { settled, recent } = settledSplit(days.rolled);
  if (settled.length === 0) return null;
  const value = await rangeValue(sql, project, { ...days, rolled: settled }, keptName(days, settled, kind), () =>
    compute(settled),
  );
  return { value, recent };
}

/** `kind`, named by the days of the range left out of `rolled` when some are. */
function keptName(days: Rolled, rolled: string[], kind: string): string {
  const left = leftOut({ ...days, rolled });
  return left.length === 0 ? kind : `${kind}-without:${left.join(',')}`;
}

/**
 * Sums per key over `rowsOf(days)` (a relation of `key` and `columns`, each [name, SQL type], in that order)
 * for the range's rolled days: over the settled ones kept (settledValue), beside the recent days' rows, which
 * add to them exactly; the rows of every rolled day when none is settled. The sums are kept as text, so no
 * number passes through a JavaScript double (numerics and 64-bit integers come back exact). Wrapped in an
 * object: a fragment is a thenable, which an async function would run instead of return.
 */
export async function settledSumsSql(
  sql: Sql,
  project: string,
  days: Rolled,
  kind: string,
  key: readonly [string, string],
  columns: readonly (readonly [string, string])[],
  rowsOf: (rolled: string[]) => Fragment,
): Promise<{ rows: Fragment }> {
  // The kept rows are read by position: their shape is part of the name, so a value kept before a column
  // was added, dropped or moved is never read as if it had the new one.
  const shape = [key, ...columns].map(([name, type]) => `${name} ${type}`).join(',');
  const kept = await settledValue(sql, project, days, `${kind}#${shape}`, async (settled) => {
    const sums = columns.map(([c]) => sql`sum(${sql(c)})::text`).reduce((a, b) => sql`${a}, ${b}`);
    const [row] = await sql<{ rows: string[][] }[]>`
      select coalesce(json_agg(s.r), '[]'::json) as rows
      from (select json_build_array(${sql(key[0])}::text, ${sums}) as r from (${rowsOf(settled)}) c group by c.${sql(key[0])}) s`;
    return row?.rows ?? [];
  });
  if (!kept) return { rows: rowsOf(days.rolled) };
  const cast = ([name, type]: readonly [string, string], i: number) =>
    sql`(r ->> ${i}::int)::${sql.unsafe(type)} as ${sql(name)}`;
  const sums = sql`
    select ${[key, ...columns].map(cast).reduce((a, b) => sql`${a}, ${b}`)}
    from json_array_elements(${sql.json(kept.value)}::json) r`;
  return { rows: kept.recent.length === 0 ? sums : sql`${sums} union all ${rowsOf(kept.recent)}` };
}

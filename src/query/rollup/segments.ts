// How a read's range splits between the day rollups and events: every whole day up to today that is
// built, not pending and not irregular is read from the rollups; everything else (pending and unbuilt
// days, a part of today, partial-day edges) is read from events at read time, as the builder would have
// counted it. The session-day rows of the raw part are what the builder stores for a day; the split-session
// correction (split.ts) then makes the sum exact across the seams, as it does between built days.
// A read that can add late events' share (late.ts) also takes the days marked only for late events and
// stretched sessions from the rollups (`late`), and adds that share to its raw part.
import type { Sql } from 'postgres';
import { query } from '../../db/queries.ts';
import type { Fragment } from '../dimensions.ts';
import { baseWhereSql, whereSql, type Scope } from '../filters.ts';
import { BUILT_IN_EVENTS } from '../stats.ts';
import { selOf } from './eligible.ts';
import { lateEventsSql, lateFilteredCtes, lateSessionCtes } from './late.ts';

const DAY = 86_400_000;

/** A half-open span of time read from events. */
export type Piece = { from: Date; to: Date };

/**
 * `from`/`to`: the whole days the plan looked at (UTC day strings, `to` exclusive); `rolled`: those
 * read from the rollups; `raw`: the spans of the range read from events (none when the rollups answer
 * for the whole range); `late`: rolled days with late events, whose share the read adds (late.ts).
 */
export type Plan = { from: string; to: string; sel: number; rolled: string[]; raw: Piece[]; late: string[] };

/**
 * The plan of a read, or null when no whole day of the range can come from the rollups. With `patch`, a
 * built day marked only for late events and stretched sessions is rolled and listed in `late`; without,
 * it is read from events like any marked day. With `setSessions`, a day whose session facts per set of
 * values are not counted (0089) is read from events too, and one whose facts lack folded events (0091) is
 * patched like a marked day (`late`) with `patch`, read from events without. With `entry` as well (the
 * entry rows per set), so is one with sessions a fold split since its facts were counted (0093).
 */
export async function planRange(
  sql: Sql,
  scope: Scope,
  opts: { patch?: boolean; now?: Date; setSessions?: boolean; entry?: boolean } = {},
): Promise<Plan | null> {
  if (scope.projectIds.length === 0) return null;
  const { from, to } = scope.range;
  const first = Math.ceil(from.getTime() / DAY) * DAY;
  const today = Math.floor((opts.now ?? new Date()).getTime() / DAY) * DAY;
  // Today is taken like a closed day, as of its last build plus the share of the events marked since
  // (every event written into it carries a mark), when the range holds all of it: the dashboard's "today"
  // does, and so does a range up to now once no event of its projects lies between its end and midnight
  // (only events stamped ahead of the server's clock, at most 5 minutes, can). Otherwise today's part is
  // read from events.
  const toMs = to.getTime();
  const wholeToday =
    toMs >= today + DAY ||
    (toMs > today && first <= today && !(await anyEvents(sql, scope.projectIds, to, today + DAY)));
  const end = wholeToday ? today + DAY : Math.min(Math.floor(toMs / DAY) * DAY, today);
  if (end <= first) return null;
  const [fromDay, toDay] = [dayOf(first), dayOf(end)];
  const pending = await query<{ day: string; patchable: boolean }>(sql, 'list_rollup_days_pending', [
    scope.projectIds,
    fromDay,
    toDay,
  ]);
  const irregular = await sql<{ day: string }[]>`
    select distinct to_char(day, 'YYYY-MM-DD') as day from rollup_days
    where project_id = any(${scope.projectIds}) and day >= ${fromDay}::date and day < ${toDay}::date and irregular`;
  const out = new Set([...pending.filter((r) => !(opts.patch && r.patchable)), ...irregular].map((r) => r.day));
  const patched = new Set<string>();
  if (opts.setSessions) {
    const counted = new Set(
      (
        await sql<{ day: string }[]>`
        select to_char(day, 'YYYY-MM-DD') as day from rollup_set_session_days
        where project_id = any(${scope.projectIds}) and day >= ${fromDay}::date and day < ${toDay}::date
        group by day having count(*) = ${scope.projectIds.length}`
      ).map((r) => r.day),
    );
    for (let d = first; d < end; d += DAY) if (!counted.has(dayOf(d))) out.add(dayOf(d));
    // The days whose facts lack events a fold added to the day's rows (0091), or, for the entry rows, hold
    // as lying within the day sessions a fold split since (0093): patched as marked days are, or read from
    // events by a read that does not patch or when they are more than a patch is worth.
    const listed = (table: string) => sql`
      select day from ${sql(table)}
      where project_id = any(${scope.projectIds}) and day >= ${fromDay}::date and day < ${toDay}::date`;
    const lacking = await sql<{ day: string; over: boolean }[]>`
      select to_char(day, 'YYYY-MM-DD') as day, count(*) > loupe_patch_limit(day) as over
      from (${listed('rollup_set_session_late')} ${opts.entry ? sql`union all ${listed('rollup_set_session_split')}` : sql``}) l
      group by day`;
    for (const r of lacking) (opts.patch && !r.over ? patched : out).add(r.day);
  }
  const late = [...new Set([...pending.filter((r) => opts.patch && r.patchable).map((r) => r.day), ...patched])].filter(
    (day) => !out.has(day),
  );
  const rolled: string[] = [];
  const raw: Piece[] = [];
  let cursor = from.getTime();
  for (let d = first; d < end; d += DAY) {
    if (out.has(dayOf(d))) continue;
    rolled.push(dayOf(d));
    if (cursor < d) raw.push({ from: new Date(cursor), to: new Date(d) });
    cursor = d + DAY;
  }
  if (rolled.length === 0) return null;
  if (cursor < to.getTime()) raw.push({ from: new Date(cursor), to });
  return { from: fromDay, to: toDay, sel: selOf(scope.traffic, scope.environment), rolled, raw, late };
}

/** Whether any event of the projects lies in [from, to). */
export async function anyEvents(sql: Sql, projectIds: string[], from: Date, to: number): Promise<boolean> {
  const [row] = await sql<{ any: boolean }[]>`
    select exists (
      select 1 from events where project_id = any(${projectIds}) and ts >= ${from} and ts < ${new Date(to)}) as any`;
  return row!.any;
}

/**
 * Under filters over several projects, `read` of each project's own scope, one project after another (the
 * rows under filters are kept per project): a project without events in the range answers null (nothing to
 * count, and no rollup days to count it from). Null when a project with events cannot be read so.
 */
export async function eachProject<T>(
  sql: Sql,
  scope: Scope,
  read: (one: Scope) => Promise<T | null>,
): Promise<Map<string, T | null> | null> {
  const out = new Map<string, T | null>();
  for (const id of scope.projectIds) {
    // A trait's session list may name several projects' sessions: none of these reads takes one anyway.
    const one = { ...scope, projectIds: [id], sessions: undefined };
    const answer = await read(one);
    if (answer === null && (await anyEvents(sql, [id], scope.range.from, scope.range.to.getTime()))) return null;
    out.set(id, answer);
  }
  return out;
}

/** Whether the read adds anything to the rolled days' rows: a raw part, or late events' share. */
export const hasRawPart = (plan: Plan) => plan.raw.length > 0 || plan.late.length > 0;

/** The events a read of value rows (value-rows.ts) adds to the rolled days' rows, as a relation with the
 *  events' columns: the raw part's, and the late events of `late` days (counted per event, as those rows
 *  are, so each adds its own share). */
export function addedEventsSql(sql: Sql, scope: Scope, plan: Plan): Fragment {
  const late = plan.late.length === 0 ? sql`` : sql`union all ${lateEventsSql(sql, scope, plan)}`;
  return sql`(select e.* from events e where ${rawWhereSql(sql, scope, plan)} ${late})`;
}

/** The scope's events in the raw pieces of the plan (projects, traffic, environment; its filters too when
 *  `filtered`). */
export function rawWhereSql(sql: Sql, scope: Scope, plan: Plan, filtered = false): Fragment {
  if (plan.raw.length === 0) return sql`false`;
  const where = filtered ? whereSql : baseWhereSql;
  return plan.raw.map((range) => sql`(${where(sql, { ...scope, range })})`).reduce((a, b) => sql`${a} or ${b}`);
}

/** The rollup rows of the plan's rolled days, over a table aliased `alias` with project_id and day. */
export function rolledDaysSql(sql: Sql, scope: Scope, plan: Plan, alias: string): Fragment {
  return sql`${sql(alias)}.project_id = any(${scope.projectIds}) and ${sql(alias)}.day = any(${plan.rolled}::date[])`;
}

/**
 * CTEs over the raw pieces, whose events are read once (raw_ev): raw_hashes (project, visitor hash as the
 * builder hashes it, day: the visitors the day's rollup rows do not hold), raw_sd (project, day, session,
 * w: the builder's session-day rows under the scope's selection, each to be added w times), raw_days (per
 * project and day: sessions, pageviews, events, bounces, duration_ms, as rollup_day_totals, to add) and
 * raw_split (sessions of raw_sd with events on another day, by the sessions table's span, as
 * build_rollup_days.sql lists them; no row counts as split: a superset is harmless). The late days' share
 * (late.ts) is in raw_sd as each touched session-day's row now (w = 1) and as its rollup counted it (w = -1).
 * `filtered`: the raw part's events under the scope's filters too (a session is then its matching events,
 * as stats.ts sessionsSql counts it), and the late days' share is each touched session-day recounted
 * under them (late.ts lateFilteredCtes), for the session facts per set of values; raw_hashes then leaves
 * the late days' visitors out (those reads count visitors from the value rows).
 */
export function rawCtes(sql: Sql, scope: Scope, plan: Plan, filtered = false): Fragment {
  const late = plan.late.length > 0;
  const sessionDay = (from: string, where: Fragment, w: number) => sql`
      select project_id, day, session_id, ${w}::int as w, min(ts) as first_ts, max(ts) as last_ts,
        count(*) filter (where name = 'pageview') as pageviews,
        count(*) filter (where name <> all(${BUILT_IN_EVENTS})) as custom,
        count(*) filter (where name <> 'engagement') as active
      from ${sql(from)} where ${where} group by 1, 2, 3`;
  return sql`
    raw_ev as materialized (
      select e.project_id, (e.ts at time zone 'UTC')::date as day, e.session_id, e.visitor_id, e.name, e.ts
      from events e where ${rawWhereSql(sql, scope, plan, filtered)}
    ), ${late ? sql`${(filtered ? lateFilteredCtes : lateSessionCtes)(sql, scope, plan)},` : sql``}
    raw_hashes as materialized (
      select distinct project_id, hashtextextended(visitor_id, 0) as h, day from raw_ev where name <> 'engagement'
      ${late && !filtered ? sql`union select project_id, h, day from late_hashes` : sql``}
    ), raw_sd as materialized (
      ${sessionDay('raw_ev', sql`true`, 1)}
      ${late ? sql`union all ${sessionDay('late_ev', sql`true`, 1)} union all ${sessionDay('late_ev', sql`not late`, -1)}` : sql``}
      ${
        late && !filtered
          ? sql`union all select project_id, day, session_id, -1, (k).first_ts, (k).last_ts, (k).pageviews, (k).custom, (k).active
      from late_merged
      union all select project_id, day, session_id, 1, least((k).first_ts, first_ts), greatest((k).last_ts, last_ts),
        (k).pageviews + pageviews, (k).custom + custom, (k).active + active
      from late_merged`
          : sql``
      }
    ), raw_days as (
      select project_id, day, coalesce(sum(w) filter (where active > 0), 0) as sessions, sum(w * pageviews) as pageviews,
        sum(w * active) as events, coalesce(sum(w) filter (where active > 0 and pageviews = 1 and custom = 0), 0) as bounces,
        coalesce(sum(w * extract(epoch from last_ts - first_ts) * 1000) filter (where active > 0), 0) as duration_ms
      from raw_sd group by 1, 2
    ), raw_split as (
      select d.project_id, d.session_id from raw_sd d
      left join sessions s on s.project_id = d.project_id and s.id = d.session_id
      where d.w = 1 and (s.id is null or s.started_at < (d.day::timestamp at time zone 'UTC')
        or s.last_activity >= ((d.day + 1)::timestamp at time zone 'UTC'))
    )`;
}

/** The whole days of the plan's span not read from the rollups: what a value kept for the rolled days is named by. */
export function leftOut(plan: Pick<Plan, 'from' | 'to' | 'rolled'>): string[] {
  const out: string[] = [];
  for (let d = Date.parse(plan.from); d < Date.parse(plan.to); d += DAY)
    if (!plan.rolled.includes(dayOf(d))) out.push(dayOf(d));
  return out;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

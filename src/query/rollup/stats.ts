// The statistic block's row from the day rollups: summed day totals, distinct visitors over the days'
// visitor rows, and the split-session correction; the part of the range the rollups do not hold
// (segments.ts) is counted from events as the builder would and added. Null when no whole day of the
// range can come from the rollups. Under filters, from the session facts per set (set-sessions.ts).
import type { Sql } from 'postgres';
import type { Scope } from '../filters.ts';
import type { StatsRow } from '../stats.ts';
import { eachProject, hasRawPart, planRange, rawCtes } from './segments.ts';
import { splitCorrectionSql, splitCtes } from './split.ts';
import { planVisitors, sumOf } from './visitors.ts';
import { rollupFilteredStats } from './set-sessions.ts';

export async function rollupStats(sql: Sql, scope: Scope): Promise<StatsRow | null> {
  if (scope.filters.length > 0 && scope.projectIds.length > 1) {
    // Visitors of different projects are different visitors: the across-projects block is a sum.
    const rows = await rollupFilteredProjectStats(sql, scope);
    return rows && [...rows.values()].reduce(addStats);
  }
  if (scope.filters.length > 0) return rollupFilteredStats(sql, scope);
  const plan = await planRange(sql, scope, { patch: true });
  if (!plan) return null;
  const raw = hasRawPart(plan);
  // Visitors of different projects are different visitors: the across-projects count is a sum.
  const visitors = await planVisitors(sql, scope, plan);
  const [row] = await sql<StatsRow[]>`
    with ${raw ? sql`${rawCtes(sql, scope, plan)},` : sql``} ${splitCtes(sql, scope, plan, raw)},
    more as (${visitors.more}),
    fix as (
      select sum(c.sessions) as sessions, sum(c.bounces) as bounces, sum(c.duration_ms) as duration_ms
      from (${splitCorrectionSql(sql, () => sql`null::timestamp`)}) c
    ),
    t as (
      select coalesce(sum(sessions), 0) as sessions, coalesce(sum(pageviews), 0) as pageviews,
        coalesce(sum(bounces), 0) as bounces, coalesce(sum(duration_ms), 0) as duration_ms
      from (
        select sessions, pageviews, bounces, duration_ms from rollup_day_totals r
        where r.project_id = any(${scope.projectIds}) and r.day = any(${plan.rolled}::date[]) and r.sel = ${plan.sel}
        ${raw ? sql`union all select sessions, pageviews, bounces, duration_ms from raw_days` : sql``}
      ) x
    )
    select (${sumOf(visitors.rolled)} + (select coalesce(sum(n), 0) from more))::int as visitors, (t.sessions + coalesce(f.sessions, 0))::int as sessions, t.pageviews::int as pageviews,
      (t.bounces + coalesce(f.bounces, 0))::int as bounces, (t.duration_ms + coalesce(f.duration_ms, 0))::float8 as duration_ms
    from t left join fix f on true`;
  return row!;
}

/** Under filters over several projects, each project's block from its own rows (set-sessions.ts): a few
 *  indexed statements each, where the raw path groups every matching event of every project. Null when one
 *  project's cannot answer. */
export async function rollupFilteredProjectStats(sql: Sql, scope: Scope): Promise<Map<string, StatsRow> | null> {
  const blocks = await eachProject(sql, scope, (one) => rollupFilteredStats(sql, one));
  return blocks && new Map([...blocks].map(([id, row]) => [id, row ?? NONE]));
}

const NONE: StatsRow = { visitors: 0, sessions: 0, pageviews: 0, bounces: 0, duration_ms: 0 };

const addStats = (a: StatsRow, b: StatsRow): StatsRow => ({
  visitors: a.visitors + b.visitors,
  sessions: a.sessions + b.sessions,
  pageviews: a.pageviews + b.pageviews,
  bounces: a.bounces + b.bounces,
  duration_ms: a.duration_ms + b.duration_ms,
});

// The list per path: every path's samples (its order and minShare cut) from the per-day path counts
// (0073_speed_path_days.sql) for the whole days of the range and the raw samples of its part-days, then
// the raw samples of the paths kept only (a page of ~20 where there are hundreds), read exactly.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { metricIndex } from './buckets.ts';
import {
  dayAtOrAfter,
  foldedKey,
  rawKey,
  readDistribution,
  where,
  type DistributionRow,
  type Grouping,
  type SpeedSelection,
} from './distribution.ts';
import type { MetricName } from './score.ts';

/** A group as a list orders it: most samples first, then by project and key. */
export type Ranked = { project: string | null; key: string | null; samples: number };

const DAY = 86_400_000;

/** Every path's samples (the most any metric has), as readDistribution counts them, most first. */
export async function pathSamples(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  metrics: readonly MetricName[],
): Promise<Ranked[]> {
  if (sel.projectIds.length === 0) return [];
  const ids = metrics.map(metricIndex);
  const project = (alias: string) => (grouping.perProject ? sql`${sql(alias)}.project_id` : sql`null::text`);
  const counts = metrics.map((x) => sql`count(s.${sql(x)})`).reduce((acc, c) => sql`${acc}, ${c}`);
  // Whole UTC days [first, end) come from the day counts (they hold human samples only, raw and folded);
  // the part-days at the ends from the raw samples and the folded days starting in them.
  const first = dayAtOrAfter(sel.range.from);
  const end = new Date(Math.floor(sel.range.to.getTime() / DAY) * DAY).toISOString().slice(0, 10);
  const counted = sel.bots === 'human' && sel.filters.length === 0 && first < end;
  const rawRange: Fragment = counted
    ? sql`((s.ts >= ${sel.range.from} and s.ts < ${first}::date::timestamp at time zone 'UTC')
        or (s.ts >= ${end}::date::timestamp at time zone 'UTC' and s.ts < ${sel.range.to}))`
    : sql`s.ts >= ${sel.range.from} and s.ts < ${sel.range.to}`;
  const days: Fragment = counted
    ? sql`
        select ${project('p')} as project, p.path as key, p.metric, sum(p.n) as n
        from speed_path_days p
        where ${countWhere(sql, sel)} and p.day >= ${first}::date and p.day < ${end}::date
          and p.metric = any(${ids}::smallint[])
        group by 1, 2, 3
        union all`
    : sql``;
  const rows = await sql<Ranked[]>`
    select project, key, max(n)::int as samples from (
      select project, key, metric, sum(n) as n from (
        ${days}
        select ${project('s')} as project, ${rawKey(sql, grouping)} as key,
          unnest(${ids}::smallint[]) as metric, unnest(array[${counts}]) as n
        from speed_samples s
        where ${where(sql, sel, 's')} and ${rawRange}
        group by 1, 2
        union all
        select ${project('f')}, ${foldedKey(sql, grouping)}, f.metric, sum(f.n)
        from speed_days f
        where ${where(sql, sel, 'f')} and f.day >= ${counted ? end : first}::date
          and f.day < ${dayAtOrAfter(sel.range.to)}::date and f.metric = any(${ids}::smallint[])
        group by 1, 2, 3
      ) as c group by 1, 2, 3 having sum(n) > 0
    ) as g group by 1, 2`;
  return rows.sort((a, b) => b.samples - a.samples || compareText(a.project, b.project) || compareText(a.key, b.key));
}

/** Projects, environment and device class over speed_path_days (`p`). */
function countWhere(sql: Sql, sel: SpeedSelection): Fragment {
  const parts: Fragment[] = [
    sel.projectIds.length === 1
      ? sql`p.project_id = ${sel.projectIds[0]!}`
      : sql`p.project_id = any(${sel.projectIds})`,
  ];
  if (sel.environment !== 'all') parts.push(sql`p.environment = ${sel.environment}`);
  if (sel.device !== 'all') parts.push(sql`p.device = ${sel.device}`);
  return parts.reduce((acc, part) => sql`${acc} and ${part}`);
}

/** The rows (one a metric) of the chosen paths, out of every path in order (`ranked`). */
export function pathRows(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  percentile: number,
  metrics: readonly MetricName[],
  ranked: readonly Ranked[],
  chosen: readonly Ranked[],
): Promise<DistributionRow[]> {
  const keys =
    chosen.length < ranked.length && chosen.every((c) => c.key !== null) ? chosen.map((c) => c.key!) : undefined;
  return readDistribution(sql, sel, grouping, metrics, percentile, keys);
}

export const compareText = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

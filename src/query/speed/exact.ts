// The exact value at a rank the day counts placed in one bucket (histogram.ts): that bucket's raw samples
// of the range, in order, with the bucket's folded samples (its count less the raw ones) standing at the
// bucket's value among them. Walked in the database, so one row a (project, key, metric) leaves it.
import type { Sql } from 'postgres';
import { RELATIVE_ERROR } from './buckets.ts';
import { rawKey, where, type DistributionRow, type Grouping, type SpeedSelection } from './distribution.ts';
import type { RankedRow } from './histogram.ts';
import { METRICS } from './score.ts';

/** The rows with their exact values (one statement a metric). */
export async function exactRows(
  sql: Sql,
  sel: SpeedSelection,
  g: Grouping,
  rows: RankedRow[],
): Promise<DistributionRow[]> {
  const byMetric = new Map<number, RankedRow[]>();
  for (const r of rows) byMetric.set(r.metric, [...(byMetric.get(r.metric) ?? []), r]);
  const exact = await Promise.all([...byMetric].map(([metric, list]) => exactValues(sql, sel, g, metric, list)));
  const values = new Map(exact.flat().map((r) => [JSON.stringify([r.project, r.key, r.metric]), r.value]));
  return rows.map(({ project, key, metric, samples, good, poor, rep }) => ({
    project,
    key,
    metric,
    samples,
    good,
    poor,
    value: values.get(JSON.stringify([project, key, metric])) ?? rep,
  }));
}

async function exactValues(sql: Sql, sel: SpeedSelection, g: Grouping, metric: number, targets: RankedRow[]) {
  const column = sql(METRICS[metric]!);
  const buckets = [...new Set(targets.map((t) => t.bucket))];
  const project = g.perProject ? sql`s.project_id` : sql`null::text`;
  // A part of the groups (a page of a list): only their samples.
  const keyed = g.key === 'route' || g.key === 'path' || g.key === 'element';
  const keys = keyed ? sql`and s.${sql(g.key)} = any(${[...new Set(targets.map((t) => t.key!))]}::text[])` : sql``;
  // One index range a value range, each a branch of its own with its bounds known to the planner (the
  // per-metric index covers every column read here).
  const raw = valueRanges(targets.map((t) => t.rep))
    .map(
      ([lo, hi]) => sql`
      select ${project} as project, ${rawKey(sql, g)} as key,
        loupe_speed_bucket_of(${metric}::smallint, s.${column}) as bucket, s.${column} as value
      from speed_samples s
      where ${where(sql, sel, 's')} and s.ts >= ${sel.range.from} and s.ts < ${sel.range.to}
        and s.${column} >= ${lo} and s.${column} <= ${hi} ${keys}
        and loupe_speed_bucket_of(${metric}::smallint, s.${column}) = any(${buckets}::int[])`,
    )
    .reduce((acc, part) => sql`${acc} union all ${part}`);
  // Per target: its raw values in order, how many lie below the bucket's value, and the folded ones
  // (count − raw) standing at that value between them.
  return sql<{ project: string | null; key: string | null; metric: number; value: number }[]>`
    with t as (
      select * from unnest(${targets.map((t) => t.project)}::text[], ${targets.map((t) => t.key)}::text[],
        ${targets.map((t) => t.bucket)}::int[], ${targets.map((t) => t.rank)}::bigint[],
        ${targets.map((t) => t.count)}::bigint[], ${targets.map((t) => t.rep)}::float8[])
        as t(project, key, bucket, rank, count, rep)
    ), s as (
      select project, key, bucket, array_agg(value order by value) as vals from (${raw}) as x group by 1, 2, 3
    ), v as (
      select t.*, coalesce(s.vals, '{}') as vals,
        coalesce(cardinality(s.vals), 0) as raw,
        (select count(*) from unnest(s.vals) as u(x) where u.x < t.rep) as below
      from t left join s on s.project is not distinct from t.project and s.key is not distinct from t.key
        and s.bucket = t.bucket
    )
    select project, key, ${metric}::int as metric, coalesce(case
      when rank <= below then vals[rank]
      when rank <= below + (count - raw) then rep
      else vals[rank - (count - raw)] end, rep) as value
    from v`;
}

/** Index ranges holding every value of the buckets with these representatives (each value lies within
 *  RELATIVE_ERROR of its bucket's), overlapping ones merged. */
function valueRanges(reps: number[]): [number, number][] {
  const ranges = reps
    .map((r): [number, number] => [(r / (1 + RELATIVE_ERROR)) * (1 - 1e-9), (r / (1 - RELATIVE_ERROR)) * (1 + 1e-9)])
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

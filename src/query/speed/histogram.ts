// The same answers as distribution.ts without reading every raw sample, for selections without filters
// grouped by nothing or by day: per-day bucket counts (0024_speed_buckets.sql) give each group's samples,
// good and poor counts and the bucket holding the requested rank; that bucket's raw samples, read
// through the per-metric index, give the exact value (its folded samples stand at the bucket's value).
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import { BLOCK_SIZES, GOODS, POORS, metricIndex } from './buckets.ts';
import {
  dayAtOrAfter,
  foldedKey,
  metricValues,
  rawKey,
  where,
  type DistributionRow,
  type Grouping,
  type SpeedSelection,
} from './distribution.ts';
import { exactRows } from './exact.ts';
import type { MetricName } from './score.ts';

/** A group's metric at bucket resolution: `bucket` holds the rank, which is the `rank`-th of its `count`
 *  samples there, and `rep` is the bucket's value. */
export type RankedRow = DistributionRow & { bucket: number; rank: number; count: number; rep: number };
type BucketRow = {
  project: string | null;
  key: string | null;
  metric: number;
  samples: string;
  good: string;
  poor: string;
  bucket: number;
  count: string;
  rank: string;
  rep: number;
};

const DAY = 86_400_000;

/** Where whole days are counted: speed_buckets (no filter), or speed_dims (0056) for one route or
 *  country (`value`), or per element or route (`value` null: the rows' value is the group); `exclude`:
 *  every human sample (speed_buckets) less that route's or country's (counts subtract). */
export type Source = { dim: null } | { dim: number; value: string | null; exclude?: boolean };
const DIMS = { route: 0, country: 1, element: 2 } as const;

/** The day counts that answer a read, or null when only the raw samples can (several filters, a page,
 *  grouping by path, hours, traffic other than human for speed_dims). */
export function histogramSource(sel: SpeedSelection, g: Grouping): Source | null {
  const whole = g.key === 'none' || g.key === 'day';
  if (sel.filters.length === 0 && whole) return { dim: null };
  if (sel.bots !== 'human') return null;
  if (sel.filters.length === 0 && (g.key === 'element' || g.key === 'route')) return { dim: DIMS[g.key], value: null };
  const [f] = sel.filters;
  if (sel.filters.length === 1 && whole && f!.dimension !== 'page')
    return { dim: DIMS[f!.dimension], value: f!.value, exclude: f!.exclude };
  return null;
}

export async function readHistogram(
  sql: Sql,
  source: Source,
  sel: SpeedSelection,
  grouping: Grouping,
  metrics: readonly MetricName[],
  percentile: number,
): Promise<DistributionRow[]> {
  return exactRows(sql, sel, grouping, await rankedRows(sql, source, sel, grouping, metrics, percentile));
}

/** One row per (project, key, metric) with its value at the bucket holding the rank (the bucket's
 *  representative) and where the rank lies in that bucket; exactRows turns it into the exact value. */
export async function rankedRows(
  sql: Sql,
  source: Source,
  sel: SpeedSelection,
  grouping: Grouping,
  metrics: readonly MetricName[],
  percentile: number,
): Promise<RankedRow[]> {
  if (sel.projectIds.length === 0) return [];
  const rows = await bucketCounts(sql, source, sel, grouping, metrics, percentile);
  return rows.map((r) => ({
    project: r.project,
    key: r.key,
    metric: r.metric,
    samples: Number(r.samples),
    value: r.rep,
    good: Number(r.good),
    poor: Number(r.poor),
    bucket: r.bucket,
    rank: Number(r.rank),
    count: Number(r.count),
    rep: r.rep,
  }));
}

/** Counts per (project, key, metric, bucket): whole days from speed_buckets, the part-days at the ends
 *  from the raw samples, and a folded part-day as distribution.ts counts it (when it starts in range);
 *  summed and walked in the database, so one row a (project, key, metric) leaves it: the samples, good
 *  and poor counts and the bucket holding the rank (ceil(p% of samples), in integers). */
async function bucketCounts(
  sql: Sql,
  source: Source,
  sel: SpeedSelection,
  g: Grouping,
  metrics: readonly MetricName[],
  percentile: number,
) {
  const { from, to } = sel.range;
  const first = Math.ceil(from.getTime() / DAY) * DAY;
  const end = Math.floor(to.getTime() / DAY) * DAY;
  const whole = first < end;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const ids = metrics.map(metricIndex);
  const project = (alias: string) => (g.perProject ? sql`${sql(alias)}.project_id` : sql`null::text`);
  // Grouped by element or route: only samples naming one, as speed_dims counts them.
  const named = (alias: string) =>
    g.key === 'element' || g.key === 'route' ? sql`and ${sql(alias)}.${sql(g.key)} is not null` : sql``;
  // The part-days one plain time range each (an index range, read from the index alone where it covers).
  // One metric a branch, so each reads its own index (speed_samples_<metric>_ts) alone.
  const rawPart = (a: Date, b: Date) =>
    metrics
      .map((metric) => {
        const m = metricValues(sql, [metric]);
        return sql`
          select ${project('s')}, ${rawKey(sql, g)}, ${m.metric}, loupe_speed_bucket_of(${m.metric}, ${m.value}), count(*)
          from ${m.from}
          where ${where(sql, sel, 's')} and s.ts >= ${a} and s.ts < ${b} and ${m.value} is not null ${named('s')}
          group by 1, 2, 3, 4`;
      })
      .reduce((acc, part) => sql`${acc} union all ${part}`);
  // speed_dims holds the days the job has built: the others of the range are read as the part-days are.
  const built = source.dim !== null && whole ? await builtDays(sql, sel.projectIds, day(first), day(end)) : null;
  const unbuilt: string[] = [];
  const ranges: [Date, Date][] = whole ? [[from, new Date(first)]] : [[from, to]];
  if (built)
    for (let t = first; t < end; t += DAY) {
      if (built.has(day(t))) continue;
      unbuilt.push(day(t));
      const last = ranges.at(-1)!;
      if (last[1].getTime() === t) last[1] = new Date(t + DAY);
      else ranges.push([new Date(t), new Date(t + DAY)]);
    }
  if (whole) ranges.push([new Date(end), to]);
  const raw = ranges.map(([a, b]) => rawPart(a, b)).reduce((acc, part) => sql`${acc} union all ${part}`);
  const unfiltered = { ...sel, filters: [] };
  const buckets = sql`speed_buckets b where ${where(sql, unfiltered, 'b')}`;
  const dims =
    source.dim === null
      ? null
      : sql`speed_dims b where ${where(sql, { ...unfiltered, bots: 'all' }, 'b')}
          and b.dim = ${sql.unsafe(String(source.dim))}
          ${source.value === null ? sql`` : sql`and b.value = ${source.value}`}`;
  const countsKey = source.dim !== null && source.value === null ? sql`b.value` : foldedKey(sql, g, 'b');
  // The list per route sums the marked blocks covering its built days and the days' rows for the rest;
  // device=all reads the blocks' rows of every class merged (device '*', 0070), the others their class.
  const cover =
    built && source.dim === DIMS.route && source.value === null
      ? coverDays(built, await markedBlocks(sql, sel.projectIds, first, end), sel.projectIds, first, end)
      : null;
  // Projects with the same days left share one index range a day (a join on pairs would scan the table).
  const days = cover
    ? sql`(${[...sameDays(cover.days)]
        .map(([list, ps]) => sql`b.project_id = any(${ps}::text[]) and b.day = any(${JSON.parse(list)}::date[])`)
        .reduce((acc, part) => sql`${acc} or ${part}`, sql`false`)})`
    : built
      ? sql`b.day = any(${[...built]}::date[])`
      : sql`b.day >= ${whole ? day(first) : '9999-01-01'}::date and b.day < ${whole ? day(end) : '9999-01-01'}::date`;
  const wholeDays = (counts: Fragment, sign: Fragment) => sql`
      select ${project('b')} as project, ${countsKey} as key, b.metric, b.bucket, ${sign} sum(b.n)::bigint as n
      from ${counts} and ${days} and b.metric = any(${ids}::smallint[])
      group by 1, 2, 3, 4`;
  const blockList = (c: Cover) => sql`select * from unnest(${c.blocks.map((x) => x[0])}::text[],
          ${c.blocks.map((x) => x[1])}::smallint[], ${c.blocks.map((x) => x[2])}::date[]) as k(project_id, size, start)`;
  const blockWhere = sql`${where(sql, { ...unfiltered, bots: 'all' }, 'b')}
        ${sel.device === 'all' ? sql`and b.device = '*'` : sql``}`;
  // Coarse: a block's rows of metric 10 + m hold metric m's counts by coarse bucket (0071).
  const blocks = (c: Cover, coarse: boolean) => sql`
      select ${project('b')} as project, b.route as key, b.metric ${coarse ? sql`- 10` : sql``} as metric, b.bucket,
        sum(b.n)::bigint as n
      from speed_route_blocks b
      where ${blockWhere} and (b.project_id, b.size, b.start) in (${blockList(c)})
        and ${coarse ? sql`b.metric >= 10 and b.metric - 10 = any(${ids}::smallint[])` : sql`b.metric = any(${ids}::smallint[])`}
      group by 1, 2, 3, 4`;
  // Within targets: each target's fine buckets of each block, one index range a (block, target).
  const blocksWithin = (c: Cover) => sql`
      select t.project, t.key, t.metric, b.bucket, sum(b.n)::bigint as n
      from t cross join (${blockList(c)}) k cross join lateral (
        select b.bucket, b.n from speed_route_blocks b
        where ${blockWhere} and b.project_id = k.project_id and b.size = k.size and b.start = k.start
          ${g.perProject ? sql`and b.project_id = t.project` : sql``}
          and b.route = t.key and b.metric = t.metric and b.bucket between t.lo and t.hi
        offset 0) as b -- kept a lookup a (target, block): flattened, it becomes a join scanning every block row
      group by 1, 2, 3, 4`;
  const folded = sql`
      select ${project('f')}, ${foldedKey(sql, g)}, f.metric, f.bucket, sum(f.n)
      from speed_days f
      where ${where(sql, sel, 'f')} and (f.day = any(${unbuilt}::date[]) or f.day >= ${whole ? day(end) : dayAtOrAfter(from)}::date
        and f.day < ${dayAtOrAfter(to)}::date) and f.metric = any(${ids}::smallint[]) ${named('f')}
      group by 1, 2, 3, 4`;
  // Every count but the blocks', at bucket resolution.
  const rest =
    dims === null
      ? wholeDays(buckets, sql``)
      : 'exclude' in source && source.exclude
        ? sql`${wholeDays(buckets, sql``)} union all ${wholeDays(dims, sql`-`)}`
        : wholeDays(dims, sql``);
  if (cover && cover.blocks.length > 0)
    return twoLevels(sql, percentile, {
      coarse: sql`${blocks(cover, true)} union all
        select project, key, metric, loupe_speed_coarse(metric, bucket), sum(n)::bigint
        from (${rest} union all ${raw} union all ${folded}) as x(project, key, metric, bucket, n) group by 1, 2, 3, 4`,
      within: sql`${blocksWithin(cover)} union all
        select x.project, x.key, x.metric, x.bucket, x.n
        from (${rest} union all ${raw} union all ${folded}) as x(project, key, metric, bucket, n)
        join t on t.project is not distinct from x.project and t.key is not distinct from x.key
          and t.metric = x.metric and x.bucket between t.lo and t.hi`,
    });
  return sql<BucketRow[]>`
    with h as (
      ${rest}
      union all
      ${raw}
      union all
      ${folded}
    ), c as (
      select project, key, metric, bucket, sum(n)::bigint as n, loupe_speed_value_of(metric, bucket) as rep
      from h group by 1, 2, 3, 4 having sum(n) > 0
    ), w as (
      select c.*, (sum(n) over (partition by project, key, metric order by bucket))::bigint as cum,
        (sum(n) over (partition by project, key, metric))::bigint as samples,
        coalesce(sum(n) filter (where rep <= (${GOODS}::float8[])[metric + 1])
          over (partition by project, key, metric), 0) as good,
        coalesce(sum(n) filter (where rep > (${POORS}::float8[])[metric + 1])
          over (partition by project, key, metric), 0) as poor
      from c
    ), r as (
      select w.*, (${percentile}::int * samples + 99) / 100 as at from w
    )
    select project, key, metric, samples::text, good::text, poor::text, bucket, n::text as count,
      (at - (cum - n))::text as rank, rep
    from r where cum >= at and cum - n < at`;
}

/** The list per route over blocks: the rank's coarse bucket first (the blocks' coarse rows, far fewer
 *  than their buckets), then only that coarse bucket's buckets of each (project, key, metric), read by
 *  index ranges (`t`: the targets). Good and poor counts are exact at coarse resolution, as the
 *  thresholds are coarse edges too. */
async function twoLevels(
  sql: Sql,
  percentile: number,
  parts: { coarse: Fragment; within: Fragment },
): Promise<BucketRow[]> {
  const coarse = await sql<(Omit<BucketRow, 'bucket' | 'count' | 'rep' | 'rank'> & { coarse: number; rank: string })[]>`
    with h as (${parts.coarse}), c as (
      select project, key, metric, bucket as coarse, sum(n)::bigint as n from h group by 1, 2, 3, 4 having sum(n) > 0
    ), w as (
      select c.*, (sum(n) over (partition by project, key, metric order by coarse))::bigint as cum,
        (sum(n) over (partition by project, key, metric))::bigint as samples,
        coalesce(sum(n) filter (where coarse <= 0) over (partition by project, key, metric), 0) as good,
        coalesce(sum(n) filter (where coarse >= 2000000) over (partition by project, key, metric), 0) as poor
      from c
    ), r as (
      select w.*, (${percentile}::int * samples + 99) / 100 as at from w
    )
    select project, key, metric, samples::text, good::text, poor::text, coarse, (at - (cum - n))::text as rank
    from r where cum >= at and cum - n < at`;
  if (coarse.length === 0) return [];
  const fine = await sql<Pick<BucketRow, 'project' | 'key' | 'metric' | 'bucket' | 'count' | 'rank' | 'rep'>[]>`
    with t as (
      select project, key, metric, rank, loupe_speed_coarse_lo(metric, coarse) as lo,
        loupe_speed_coarse_hi(metric, coarse) as hi
      from unnest(${coarse.map((r) => r.project)}::text[], ${coarse.map((r) => r.key)}::text[],
        ${coarse.map((r) => r.metric)}::smallint[], ${coarse.map((r) => r.coarse)}::int[],
        ${coarse.map((r) => r.rank)}::bigint[]) as t(project, key, metric, coarse, rank)
    ), h as (${parts.within}), c as (
      select project, key, metric, bucket, sum(n)::bigint as n from h group by 1, 2, 3, 4 having sum(n) > 0
    ), w as (
      select c.*, (sum(n) over (partition by project, key, metric order by bucket))::bigint as cum from c
    )
    select w.project, w.key, w.metric, w.bucket, w.n::text as count, (t.rank - (w.cum - w.n))::text as rank,
      loupe_speed_value_of(w.metric, w.bucket) as rep
    from w join t on t.project is not distinct from w.project and t.key is not distinct from w.key
      and t.metric = w.metric
    where w.cum >= t.rank and w.cum - w.n < t.rank`;
  const at = new Map(fine.map((r) => [JSON.stringify([r.project, r.key, r.metric]), r]));
  return coarse.map((r) => {
    const f = at.get(JSON.stringify([r.project, r.key, r.metric]))!;
    return { ...r, bucket: f.bucket, count: f.count, rank: f.rank, rep: f.rep };
  });
}

/** The days of [from, to) that speed_dims holds for every one of the projects: built by the job, or
 *  without samples (nothing to read either way). */
async function builtDays(sql: Sql, projectIds: string[], from: string, to: string): Promise<Set<string>> {
  const rows = await sql<{ day: string }[]>`
    select d.day::date::text as day from generate_series(${from}::date, ${to}::date - 1, interval '1 day') as d(day)
    where not exists (
      select 1 from unnest(${projectIds}::text[]) as p(id)
      where exists (select 1 from speed_buckets b where b.project_id = p.id and b.day = d.day::date)
        and not exists (select 1 from speed_dims_days k where k.project_id = p.id and k.day = d.day::date))`;
  return new Set(rows.map((r) => r.day));
}

type Cover = { blocks: [string, number, string][]; days: [string, string][] };

/** The blocks of speed_route_blocks marked built for these projects, starting in [first, end). */
async function markedBlocks(sql: Sql, projectIds: string[], first: number, end: number): Promise<Set<string>> {
  const rows = await sql<{ project_id: string; size: number; start: string }[]>`
    select project_id, size, start::text as start from speed_route_blocks_built
    where project_id = any(${projectIds}::text[]) and start >= ${isoDay(first)}::date and start < ${isoDay(end)}::date`;
  return new Set(rows.map((r) => JSON.stringify([r.project_id, r.size, r.start])));
}

/** Each project's built days of [first, end) as the fewest aligned marked blocks (the largest that fits
 *  at each day, every day of it built) and single days for the rest. */
function coverDays(built: Set<string>, marked: Set<string>, projectIds: string[], first: number, end: number): Cover {
  const cover: Cover = { blocks: [], days: [] };
  for (const p of projectIds)
    for (let t = first; t < end;) {
      const d = isoDay(t);
      if (!built.has(d)) {
        t += DAY;
        continue;
      }
      const size = [...BLOCK_SIZES]
        .reverse()
        .find(
          (s) =>
            (t / DAY) % s === 0 &&
            t + s * DAY <= end &&
            marked.has(JSON.stringify([p, s, d])) &&
            Array.from({ length: s }, (_, i) => isoDay(t + i * DAY)).every((x) => built.has(x)),
        );
      if (size) cover.blocks.push([p, size, d]);
      else cover.days.push([p, d]);
      t += (size ?? 1) * DAY;
    }
  return cover;
}

/** The projects of each distinct list of single days (keyed by the list as JSON). */
function sameDays(days: [string, string][]): Map<string, string[]> {
  const byProject = new Map<string, string[]>();
  for (const [p, d] of days) byProject.set(p, [...(byProject.get(p) ?? []), d]);
  const lists = new Map<string, string[]>();
  for (const [p, list] of byProject) lists.set(JSON.stringify(list), [...(lists.get(JSON.stringify(list)) ?? []), p]);
  return lists;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

// One statement answers every speed read: per group and metric, the samples, the value at the percentile
// (nearest rank) and the counts of good and poor values, over the raw samples of the range and the folded
// days (bucket representatives) together, so a job folding meanwhile never counts a sample twice or never.
import type { Sql } from 'postgres';
import type { Fragment } from '../dimensions.ts';
import type { Environment, Range } from '../params.ts';
import { GOODS, POORS, metricIndex, rawWindowStart } from './buckets.ts';
import { METRICS, type MetricName } from './score.ts';

export type Device = 'mobile' | 'desktop' | 'all';
export type Bots = 'human' | 'bots' | 'all';
export type SpeedFilter = { dimension: 'route' | 'page' | 'country'; value: string; exclude: boolean };
export type SpeedSelection = {
  projectIds: string[];
  range: Range;
  environment: Environment;
  bots: Bots;
  device: Device;
  filters: readonly SpeedFilter[];
};
/** What a row is per: nothing, a column, a UTC day or hour, and optionally per project too. */
export type Grouping = { key: 'none' | 'route' | 'path' | 'element' | 'day' | 'hour'; perProject?: boolean };
export type DistributionRow = {
  project: string | null;
  key: string | null;
  metric: number;
  samples: number;
  value: number | null;
  good: number;
  poor: number;
};

const COLUMN = { route: 'route', page: 'path', country: 'country' } as const;
const DAY = 86_400_000;

export async function readDistribution(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  metrics: readonly MetricName[],
  percentile: number,
  keys?: readonly string[],
): Promise<DistributionRow[]> {
  if (sel.projectIds.length === 0) return [];
  const ids = metrics.map(metricIndex);
  const m = metricValues(sql, metrics);
  const project = (alias: string) => (grouping.perProject ? sql`${sql(alias)}.project_id` : sql`null::text`);
  // Grouped by element or route: only samples naming one (a route falls back to the path when stored).
  const named = grouping.key === 'element' || grouping.key === 'route';
  // Only these groups (a page of a list).
  const only = (alias: string) =>
    keys && (named || grouping.key === 'path')
      ? sql`and ${sql(alias)}.${sql(grouping.key)} = any(${keys as string[]}::text[])`
      : sql``;
  if (dayAtOrAfter(sel.range.from) >= dayOf(rawWindowStart(new Date()))) {
    // No folded day can count in the range (the job folds only days before the raw window): the samples
    // alone (one metric: its samples only, through its own index), one pass a group, each metric's column
    // sorted by an ordered-set aggregate (nulls left out) and the value at the nearest rank ceil(p·n/100)
    // taken. percentile_disc takes ceil(f·n): f is a hair under p/100 so that rounding never lifts an
    // integer p·n/100 to the next rank (otherwise p·n/100 is at least 0.01 above an integer, far more
    // than n·1e-13).
    const fraction = percentile / 100 - 1e-13;
    const aggs = metrics
      .map((x, i) => {
        const c = sql`s.${sql(x)}`;
        const k = metricIndex(x);
        return sql`count(${c}) as n${sql.unsafe(String(i))},
          percentile_disc(${fraction}::float8) within group (order by ${c}) as v${sql.unsafe(String(i))},
          count(*) filter (where ${c} <= ${GOODS[k]!}::float8) as g${sql.unsafe(String(i))},
          count(*) filter (where ${c} > ${POORS[k]!}::float8) as p${sql.unsafe(String(i))}`;
      })
      .reduce((acc, part) => sql`${acc}, ${part}`);
    const unpivot = metrics
      .map((x, i) => {
        const n = sql.unsafe(String(i));
        return sql`(${metricIndex(x)}::smallint, a.n${n}, a.v${n}, a.g${n}, a.p${n})`;
      })
      .reduce((acc, part) => sql`${acc}, ${part}`);
    return sql<DistributionRow[]>`
      select a.project, a.key, m.metric, m.samples::int as samples, m.value, m.good::int as good, m.poor::int as poor
      from (
        select ${project('s')} as project, ${rawKey(sql, grouping)} as key, ${aggs}
        from speed_samples s
        where ${where(sql, sel, 's')} and s.ts >= ${sel.range.from} and s.ts < ${sel.range.to}
          ${named ? sql`and s.${sql(grouping.key)} is not null` : sql``} ${only('s')}
          ${metrics.length === 1 ? sql`and s.${sql(metrics[0]!)} is not null` : sql``}
        group by 1, 2
      ) as a cross join lateral (values ${unpivot}) as m(metric, samples, value, good, poor)
      where m.samples > 0`;
  }
  const rows = await sql<DistributionRow[]>`
    with d as (
      select ${project('s')} as project, ${rawKey(sql, grouping)} as key, ${m.metric} as metric, ${m.value} as value, count(*)::bigint as n
      from ${m.from}
      where ${where(sql, sel, 's')} and s.ts >= ${sel.range.from} and s.ts < ${sel.range.to} and ${m.value} is not null
        ${named ? sql`and s.${sql(grouping.key)} is not null` : sql``} ${only('s')}
      group by 1, 2, 3, 4
      union all
      select ${project('f')}, ${foldedKey(sql, grouping)}, f.metric,
        loupe_speed_value_of(f.metric, f.bucket),
        sum(f.n)::bigint
      from speed_days f
      where ${where(sql, sel, 'f')} and f.day >= ${dayAtOrAfter(sel.range.from)}::date
        and f.day < ${dayAtOrAfter(sel.range.to)}::date and f.metric = any(${ids}::smallint[])
        ${named ? sql`and f.${sql(grouping.key)} is not null` : sql``} ${only('f')}
      group by 1, 2, 3, f.bucket
    ), v as (
      select project, key, metric, value, sum(n) as n from d group by 1, 2, 3, 4
    ), c as (
      select v.*, sum(n) over (partition by project, key, metric order by value) as cum,
        sum(n) over (partition by project, key, metric) as total
      from v
    )
    select project, key, metric, max(total)::int as samples,
      min(value) filter (where cum * 100 >= total * ${percentile}) as value,
      coalesce(sum(n) filter (where value <= (${GOODS}::float8[])[metric + 1]), 0)::int as good,
      coalesce(sum(n) filter (where value > (${POORS}::float8[])[metric + 1]), 0)::int as poor
    from c group by 1, 2, 3`;
  return rows;
}

/** The raw samples (`s`) one row a metric value: one metric reads its column, several unpivot theirs. */
export function metricValues(
  sql: Sql,
  metrics: readonly MetricName[],
): { from: Fragment; metric: Fragment; value: Fragment } {
  if (metrics.length === 1)
    return {
      from: sql`speed_samples s`,
      metric: sql`${metricIndex(metrics[0]!)}::smallint`,
      value: sql`s.${sql(metrics[0]!)}`,
    };
  const unpivot = metrics
    .map((m) => sql`(${metricIndex(m)}::smallint, s.${sql(m)})`)
    .reduce((acc, part) => sql`${acc}, ${part}`);
  return {
    from: sql`speed_samples s cross join lateral (values ${unpivot}) as m(metric, value)`,
    metric: sql`m.metric`,
    value: sql`m.value`,
  };
}

export const metricOf = (row: Pick<DistributionRow, 'metric'>): MetricName => METRICS[row.metric]!;

/** Environment, bots, device, projects and the route/page/country filters, over speed_samples (`s`),
 *  speed_days or speed_buckets (any other alias). */
export function where(sql: Sql, sel: SpeedSelection, alias: string): Fragment {
  const a = sql(alias);
  const parts: Fragment[] = [
    sel.projectIds.length === 1
      ? sql`${a}.project_id = ${sel.projectIds[0]!}`
      : sql`${a}.project_id = any(${sel.projectIds})`,
  ];
  if (sel.environment !== 'all') parts.push(sql`${a}.environment = ${sel.environment}`);
  // Not human: a bot score of 50 or more, an internal visitor or a localhost page (docs/metrics.md); the
  // day counts and folded days hold that as `bot`.
  const bot = alias === 's' ? sql`(${a}.bot_score >= 50 or ${a}.is_internal or ${a}.is_localhost)` : sql`${a}.bot`;
  if (sel.bots === 'human') parts.push(sql`not ${bot}`);
  if (sel.bots === 'bots') parts.push(bot);
  if (sel.device === 'mobile') parts.push(sql`${a}.device in ('mobile', 'tablet')`);
  if (sel.device === 'desktop') parts.push(sql`${a}.device = 'desktop'`);
  for (const f of sel.filters) {
    const col = sql`${a}.${sql(COLUMN[f.dimension])}`;
    parts.push(f.exclude ? sql`${col} is distinct from ${f.value}` : sql`${col} = ${f.value}`);
  }
  return parts.reduce((acc, part) => sql`${acc} and ${part}`);
}

export function rawKey(sql: Sql, g: Grouping): Fragment {
  if (g.key === 'none') return sql`null::text`;
  if (g.key === 'day' || g.key === 'hour')
    return sql`extract(epoch from date_trunc(${g.key}, s.ts, 'UTC'))::bigint::text`;
  return sql`s.${sql(g.key)}`;
}

export function foldedKey(sql: Sql, g: Grouping, alias = 'f'): Fragment {
  if (g.key === 'none') return sql`null::text`;
  // Folded days have no hours; an hourly read never reaches them (the route allows hours in the raw window).
  if (g.key === 'day' || g.key === 'hour')
    return sql`extract(epoch from ${sql(alias)}.day::timestamp at time zone 'UTC')::bigint::text`;
  return sql`${sql(alias)}.${sql(g.key)}`;
}

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/** A folded day counts when it starts inside the range: the first day starting at or after the instant. */
export const dayAtOrAfter = (d: Date): string =>
  new Date(Math.ceil(d.getTime() / DAY) * DAY).toISOString().slice(0, 10);

// The speed reads: distribution rows (distribution.ts) shaped into scored answers (score.ts): the summary,
// rows per route or path, a series per day or hour, and the elements behind LCP, INP and CLS.
import type { Sql } from 'postgres';
import { exactRows } from './exact.ts';
import { compareText, pathRows, pathSamples, type Ranked } from './paths.ts';
export type { Ranked } from './paths.ts';
import { histogramSource, rankedRows, readHistogram, type RankedRow } from './histogram.ts';
import {
  metricOf,
  readDistribution,
  type DistributionRow,
  type Grouping,
  type SpeedSelection,
} from './distribution.ts';
import { band, METRICS, metricScore, pageScore, rate, type Curves, type MetricName, type Rating } from './score.ts';

export type Shares = { good: number; needsImprovement: number; poor: number };
export type MetricAnswer = {
  value: number | null;
  rating: Rating | null;
  score: number | null;
  samples: number;
  shares: Shares;
};
export type SpeedAnswer = {
  score: number | null;
  rating: Rating | null;
  samples: number;
  metrics: Record<MetricName, MetricAnswer>;
};
export type GroupAnswer = SpeedAnswer & { project: string | null; key: string | null };

export const curvesOf = (sel: Pick<SpeedSelection, 'device'>): Curves =>
  sel.device === 'desktop' ? 'desktop' : 'mobile';

/** The whole selection as one answer. */
export async function readSpeed(sql: Sql, sel: SpeedSelection, percentile: number): Promise<SpeedAnswer> {
  return summarize(await distribution(sql, sel, { key: 'none' }, METRICS, percentile), curvesOf(sel));
}

/** The groups a list shows, out of every group in order (a page, or every row kept by an export). */
export type PickGroups = (ranked: Ranked[]) => Ranked[];

/** One answer per group (route, path, element, …), most samples first, then by key: every group, or the
 *  ones `pick` keeps. Day counts give every group's samples; only the kept ones' exact values are read. */
export async function readSpeedGroups(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  percentile: number,
  metrics: readonly MetricName[] = METRICS,
  pick: PickGroups = (ranked) => ranked,
): Promise<GroupAnswer[]> {
  const source = histogramSource(sel, grouping);
  if (!source && grouping.key === 'path') return pathPage(sql, sel, grouping, percentile, metrics, pick);
  const rows: DistributionRow[] = source
    ? await rankedRows(sql, source, sel, grouping, metrics, percentile)
    : await readDistribution(sql, sel, grouping, metrics, percentile);
  const groups = new Map<string, DistributionRow[]>();
  for (const r of rows) {
    const id = groupId(r);
    const list = groups.get(id);
    if (list) list.push(r);
    else groups.set(id, [r]);
  }
  const ranked = [...groups.values()]
    .map((g) => ({ project: g[0]!.project, key: g[0]!.key, samples: Math.max(0, ...g.map((r) => r.samples)) }))
    .sort((a, b) => b.samples - a.samples || compareText(a.project, b.project) || compareText(a.key, b.key));
  const chosen = pick(ranked);
  const kept = chosen.flatMap((c) => groups.get(groupId(c))!);
  const exact = source ? await exactRows(sql, sel, grouping, kept as RankedRow[]) : kept;
  const answers = new Map<string, DistributionRow[]>();
  for (const r of exact) answers.set(groupId(r), [...(answers.get(groupId(r)) ?? []), r]);
  return chosen.map((c) => ({ project: c.project, key: c.key, ...summarize(answers.get(groupId(c))!, curvesOf(sel)) }));
}

const groupId = (g: { project: string | null; key: string | null }) => JSON.stringify([g.project, g.key]);

/** Paths: every path's samples from their day counts, then the rows of the paths kept only (paths.ts). */
async function pathPage(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  percentile: number,
  metrics: readonly MetricName[],
  pick: PickGroups,
): Promise<GroupAnswer[]> {
  const ranked = await pathSamples(sql, sel, grouping, metrics);
  const chosen = pick(ranked);
  if (chosen.length === 0) return [];
  const answers = new Map<string, DistributionRow[]>();
  for (const r of await pathRows(sql, sel, grouping, percentile, metrics, ranked, chosen))
    answers.set(groupId(r), [...(answers.get(groupId(r)) ?? []), r]);
  return chosen.map((c) => ({
    project: c.project,
    key: c.key,
    ...summarize(answers.get(groupId(c)) ?? [], curvesOf(sel)),
  }));
}

/** The day counts answer what they carry (histogram.ts), the raw samples the rest. */
function distribution(
  sql: Sql,
  sel: SpeedSelection,
  grouping: Grouping,
  metrics: readonly MetricName[],
  percentile: number,
): Promise<DistributionRow[]> {
  const source = histogramSource(sel, grouping);
  return source
    ? readHistogram(sql, source, sel, grouping, metrics, percentile)
    : readDistribution(sql, sel, grouping, metrics, percentile);
}

/** A group's rows (one a metric) as an answer; samples is the most any metric has (about one a page load,
 *  as each page load reports each metric once at most). */
export function summarize(rows: DistributionRow[], curves: Curves): SpeedAnswer {
  const byMetric = new Map(rows.map((r) => [metricOf(r), r]));
  const metrics = Object.fromEntries(METRICS.map((m) => [m, metricAnswer(m, byMetric.get(m), curves)])) as Record<
    MetricName,
    MetricAnswer
  >;
  const score = pageScore(Object.fromEntries(METRICS.map((m) => [m, metrics[m].value])), curves);
  return {
    score,
    rating: score === null ? null : band(score),
    samples: Math.max(0, ...METRICS.map((m) => metrics[m].samples)),
    metrics,
  };
}

export function metricAnswer(metric: MetricName, row: DistributionRow | undefined, curves: Curves): MetricAnswer {
  if (!row || row.samples === 0 || row.value === null)
    return { value: null, rating: null, score: null, samples: 0, shares: { good: 0, needsImprovement: 0, poor: 0 } };
  const score = metricScore(metric, row.value, curves);
  return {
    value: row.value,
    rating: rate(metric, row.value),
    score: score === null ? null : Math.round(100 * score),
    samples: row.samples,
    shares: {
      good: row.good / row.samples,
      needsImprovement: (row.samples - row.good - row.poor) / row.samples,
      poor: row.poor / row.samples,
    },
  };
}

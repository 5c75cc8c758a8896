// The one scoring of Web Vitals (DESIGN.md "Speed score"): web-vitals thresholds rate a value, Lighthouse's
// log-normal curves score it, and a page's score is the weighted mean over the metrics that have samples.
// Every speed answer (speed reads, the overview, the across-projects speedScore) goes through here.

export const METRICS = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type MetricName = (typeof METRICS)[number];
export type Rating = 'good' | 'needs-improvement' | 'poor';
export type Curves = 'mobile' | 'desktop';

/** web-vitals: a value ≤ good is good, > poor is poor. */
export const THRESHOLDS: Record<MetricName, { good: number; poor: number }> = {
  lcp: { good: 2500, poor: 4000 },
  inp: { good: 200, poor: 500 },
  cls: { good: 0.1, poor: 0.25 },
  fcp: { good: 1800, poor: 3000 },
  ttfb: { good: 800, poor: 1800 },
};

type Scored = Exclude<MetricName, 'ttfb'>;

/** Lighthouse control points (p10 scores 90, median 50) and the page-score weights. */
const CURVES: Record<Curves, Record<Scored, { p10: number; median: number }>> = {
  mobile: {
    fcp: { p10: 1800, median: 3000 },
    lcp: { p10: 2500, median: 4000 },
    inp: { p10: 200, median: 500 },
    cls: { p10: 0.1, median: 0.25 },
  },
  desktop: {
    fcp: { p10: 934, median: 1600 },
    lcp: { p10: 1200, median: 2400 },
    inp: { p10: 200, median: 500 },
    cls: { p10: 0.1, median: 0.25 },
  },
};
export const WEIGHTS: Record<Scored, number> = { fcp: 15, lcp: 30, inp: 30, cls: 25 };

export function rate(metric: MetricName, value: number): Rating {
  const t = THRESHOLDS[metric];
  return value <= t.good ? 'good' : value <= t.poor ? 'needs-improvement' : 'poor';
}

/** A score's band: ≥ 90 good, 50–89 needs-improvement, < 50 poor. */
export const band = (score: number): Rating => (score >= 90 ? 'good' : score >= 50 ? 'needs-improvement' : 'poor');

/** A metric's score 0–1 on its curve (device=all uses the mobile curves); null for ttfb, which is unscored. */
export function metricScore(metric: MetricName, value: number, curves: Curves): number | null {
  if (metric === 'ttfb') return null;
  const { p10, median } = CURVES[curves][metric];
  return lighthouse(value, p10, median);
}

/** The page score 0–100: weighted mean of the scored metrics that have a value; null when none has. */
export function pageScore(values: Partial<Record<MetricName, number | null>>, curves: Curves): number | null {
  let weighted = 0;
  let weights = 0;
  for (const metric of Object.keys(WEIGHTS) as Scored[]) {
    const value = values[metric];
    if (value === null || value === undefined) continue;
    weighted += WEIGHTS[metric] * metricScore(metric, value, curves)!;
    weights += WEIGHTS[metric];
  }
  return weights === 0 ? null : Math.round((100 * weighted) / weights);
}

const INVERSE_ERFC_ONE_FIFTH = 0.9061938024368232;

/** Lighthouse's getLogNormalScore: (1 − erf(x)) / 2 with x = ln(v / median) · 0.9061938 / −ln(p10 / median),
 *  held inside the band its value falls in (p10 and better ≥ 0.9, up to the median ≥ 0.5), as Lighthouse does. */
export function lighthouse(value: number, p10: number, median: number): number {
  if (value <= 0) return 1;
  const x = (Math.log(value / median) * INVERSE_ERFC_ONE_FIFTH) / -Math.log(p10 / median);
  const score = (1 - erf(x)) / 2;
  if (value <= p10) return Math.max(0.9, Math.min(1, score));
  if (value <= median) return Math.max(0.5, Math.min(0.8999999999999999, score));
  return Math.max(0, Math.min(0.49999999999999994, score));
}

/** Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7), as Lighthouse's own statistics module. */
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return sign * y;
}

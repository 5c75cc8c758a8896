// Speed answers computed the plain way from a list of samples, for the speed tests to compare the
// server's answers with: filter, sort each metric's values, take the nearest rank, count by threshold,
// and score on Lighthouse's curves with an erf of its own (a series, not the server's approximation).

export type Sample = {
  project: string;
  ts: number;
  route: string | null;
  path: string | null;
  device: string | null;
  country: string | null;
  environment: 'production' | 'preview';
  bot: boolean;
  /** An internal visitor's or a localhost page's sample: not human traffic, like a bot's. */
  internal?: boolean;
  element: string | null;
  lcp: number | null;
  inp: number | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
};
export type Selection = {
  projects: string[];
  from: number;
  to: number;
  environment: 'production' | 'preview' | 'all';
  device: 'mobile' | 'desktop' | 'all';
  filters: { dimension: 'route' | 'page' | 'country'; value: string; exclude: boolean }[];
};

export const METRICS = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
type Metric = (typeof METRICS)[number];
const LIMITS = { lcp: [2500, 4000], inp: [200, 500], cls: [0.1, 0.25], fcp: [1800, 3000], ttfb: [800, 1800] };
const CONTROL = {
  mobile: { fcp: [1800, 3000], lcp: [2500, 4000], inp: [200, 500], cls: [0.1, 0.25] },
  desktop: { fcp: [934, 1600], lcp: [1200, 2400], inp: [200, 500], cls: [0.1, 0.25] },
} as const;
const WEIGHT = { fcp: 15, lcp: 30, inp: 30, cls: 25 } as const;

export function selected(samples: Sample[], s: Selection): Sample[] {
  return samples.filter((x) => {
    if (!s.projects.includes(x.project) || x.ts < s.from || x.ts >= s.to || x.bot || x.internal) return false;
    if (s.environment !== 'all' && x.environment !== s.environment) return false;
    if (s.device === 'mobile' && x.device !== 'mobile' && x.device !== 'tablet') return false;
    if (s.device === 'desktop' && x.device !== 'desktop') return false;
    return s.filters.every((f) => {
      const v = f.dimension === 'page' ? x.path : f.dimension === 'route' ? (x.route ?? x.path) : x.country;
      return f.exclude ? v !== f.value : v === f.value;
    });
  });
}

export function metric(samples: Sample[], m: Metric, percentile: number, curves: 'mobile' | 'desktop') {
  const values = samples
    .map((x) => x[m])
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  const n = values.length;
  if (n === 0)
    return { value: null, rating: null, score: null, samples: 0, shares: { good: 0, needsImprovement: 0, poor: 0 } };
  const value = values[Math.ceil((percentile * n) / 100) - 1]!;
  const [good, poor] = LIMITS[m];
  const goods = values.filter((v) => v <= good).length;
  const poors = values.filter((v) => v > poor).length;
  const s = m === 'ttfb' ? null : curve(value, CONTROL[curves][m]);
  return {
    value,
    rating: value <= good ? 'good' : value <= poor ? 'needs-improvement' : 'poor',
    score: s === null ? null : Math.round(100 * s),
    samples: n,
    shares: { good: goods / n, needsImprovement: (n - goods - poors) / n, poor: poors / n },
  };
}

export function summary(samples: Sample[], percentile: number, curves: 'mobile' | 'desktop') {
  const metrics = Object.fromEntries(METRICS.map((m) => [m, metric(samples, m, percentile, curves)]));
  let sum = 0;
  let weights = 0;
  for (const m of ['fcp', 'lcp', 'inp', 'cls'] as const) {
    const v = metrics[m]!.value;
    if (v === null) continue;
    sum += WEIGHT[m] * curve(v, CONTROL[curves][m]);
    weights += WEIGHT[m];
  }
  const score = weights === 0 ? null : Math.round((100 * sum) / weights);
  return {
    score,
    rating: score === null ? null : score >= 90 ? 'good' : score >= 50 ? 'needs-improvement' : 'poor',
    samples: Math.max(0, ...METRICS.map((m) => metrics[m]!.samples)),
    metrics,
  };
}

/** Lighthouse's log-normal score with its band clamps. */
function curve(v: number, [p10, median]: readonly [number, number]): number {
  if (v <= 0) return 1;
  const x = (Math.log(v / median) * 0.9061938024368232) / -Math.log(p10 / median);
  const s = (1 - erf(x)) / 2;
  if (v <= p10) return Math.max(0.9, Math.min(1, s));
  if (v <= median) return Math.max(0.5, Math.min(0.8999999999999999, s));
  return Math.max(0, Math.min(0.49999999999999994, s));
}

/** erf by its Maclaurin series (|x| ≤ 4: 200 terms reach double precision), else ±1. */
function erf(x: number): number {
  if (Math.abs(x) > 4) return Math.sign(x);
  let term = x;
  let sum = x;
  for (let k = 1; k < 200; k++) {
    term *= (-x * x) / k;
    sum += term / (2 * k + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

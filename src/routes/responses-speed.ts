// The success bodies of the speed (Web Vitals) reads, per project and across projects; see responses.ts
// for how these schemas are used.
import * as v from 'valibot';
import { environments } from '../query/params.ts';
import { at, filters, int, maybe, range, text } from './response-parts.ts';

const rating = maybe(v.picklist(['good', 'needs-improvement', 'poor']));
const share = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
/** One metric: value at the percentile (ms; CLS unitless), its rating and 0–100 score, and shares by rating. */
const metric = v.object({
  value: maybe(v.number()),
  rating,
  score: maybe(int),
  samples: int,
  shares: v.object({ good: share, needsImprovement: share, poor: share }),
});
const metrics = { lcp: metric, inp: metric, cls: metric, fcp: metric, ttfb: metric };
const overall = { score: maybe(int), rating, samples: int };

const envelope = {
  percentile: v.picklist([50, 75, 90, 95, 99]),
  device: v.picklist(['mobile', 'desktop', 'all']),
  environment: v.picklist(environments),
  range,
  traffic: v.literal('human'),
  filters,
};
const metricName = v.picklist(['lcp', 'inp', 'cls', 'fcp', 'ttfb']);
const nextCursor = maybe(text);

export const speedResponse = v.object({ data: v.object({ ...overall, metrics: v.object(metrics) }), ...envelope });

const routeRow = {
  route: v.pipe(maybe(text), v.description('The route (or path with group=path); null when none was reported.')),
  ...overall,
  ...metrics,
};
const routesEnvelope = { ...envelope, group: v.picklist(['route', 'path']), minShare: share, nextCursor };
export const speedRoutesResponse = v.object({ data: v.array(v.object(routeRow)), ...routesEnvelope });
export const speedProjectRoutesResponse = v.object({
  data: v.array(v.object({ project: maybe(text), ...routeRow })),
  ...routesEnvelope,
});

export const speedSeriesResponse = v.object({
  data: v.array(v.object({ bucket: at, ...metric.entries })),
  metric: metricName,
  interval: v.picklist(['day', 'hour']),
  ...envelope,
});

export const speedElementsResponse = v.object({
  data: v.array(
    v.object({
      element: v.pipe(maybe(text), v.description('The selector the SDK reported for the element.')),
      samples: int,
      value: maybe(v.number()),
      rating,
      score: maybe(int),
    }),
  ),
  metric: metricName,
  nextCursor,
  ...envelope,
});

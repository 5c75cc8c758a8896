// The speed view's choices as they sit in the address: range (each ends with today, so today's samples
// count), device, percentile and the metric of the time series and elements. Sent as the API's names.
import { pickParam } from '../../components/view-query.ts';

export const RANGES = [
  { key: 'today', label: 'Today', days: 1 },
  { key: '7d', label: 'Last 7 days', days: 7 },
  { key: '30d', label: 'Last 30 days', days: 30 },
  { key: '90d', label: 'Last 90 days', days: 90 },
] as const;
export const DEVICES = ['all', 'mobile', 'desktop'] as const;
export const PERCENTILES = ['50', '75', '90', '95', '99'] as const;
export const METRICS = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type Metric = (typeof METRICS)[number];
export const METRIC_LABELS: Record<Metric, string> = {
  lcp: 'Largest Contentful Paint',
  inp: 'Interaction to Next Paint',
  cls: 'Cumulative Layout Shift',
  fcp: 'First Contentful Paint',
  ttfb: 'Time to First Byte',
};

export type SpeedState = {
  range: (typeof RANGES)[number]['key'];
  device: (typeof DEVICES)[number];
  percentile: (typeof PERCENTILES)[number];
  metric: Metric;
};

const DAY = 86_400_000;

export function readSpeedState(): SpeedState {
  return {
    range: pickParam(
      'range',
      RANGES.map((r) => r.key),
      '7d',
    ),
    device: pickParam('device', DEVICES, 'all'),
    percentile: pickParam('percentile', PERCENTILES, '75'),
    metric: pickParam('metric', METRICS, 'lcp'),
  };
}

/** The API's query for a state: from/to in UTC days, through the end of today. */
export function speedQuery(s: SpeedState, now = Date.now()): Record<string, string> {
  const days = RANGES.find((r) => r.key === s.range)!.days;
  const end = (Math.floor(now / DAY) + 1) * DAY;
  return {
    from: new Date(end - days * DAY).toISOString(),
    to: new Date(end).toISOString(),
    device: s.device,
    percentile: s.percentile,
  };
}

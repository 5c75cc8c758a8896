// A metric at the percentile over time (GET …/speed/timeseries): per hour for today, per day otherwise,
// drawn with uPlot; buckets without samples are gaps, not zeros.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote, Loading } from '../../components/notes.tsx';
import { dark } from '../../theme.ts';
import { metricText } from './format.ts';
import { METRIC_LABELS, type Metric, type SpeedState } from './state.ts';

type Bucket = { bucket: string; value: number | null; samples: number };

type Props = { base: string; state: SpeedState; query: Record<string, string>; ready: boolean };

export function SpeedSeries({ base, state, query, ready }: Props) {
  const interval = state.range === 'today' ? 'hour' : 'day';
  const key = `${authKey.value}|${base}|series|${state.metric}|${JSON.stringify(query)}`;
  const series = useLoad(ready ? key : null, (signal) =>
    get<{ data: Bucket[] }>(`${base}/timeseries`, { ...query, metric: state.metric, interval }, signal).then(
      (r) => r.data,
    ),
  );
  return (
    <section class="card chart-card" aria-labelledby="speed-series-title">
      <h2 id="speed-series-title">
        {METRIC_LABELS[state.metric]}{' '}
        <span class="muted">
          p{state.percentile}, by {interval}
        </span>
      </h2>
      {series.error ? <ErrorNote error={series.error} /> : null}
      {!series.data && !series.error ? <Loading label="Loading the time series…" /> : null}
      {series.data ? <Plot buckets={series.data} metric={state.metric} /> : null}
    </section>
  );
}

function Plot({ buckets, metric }: { buckets: Bucket[]; metric: Metric }) {
  const el = useRef<HTMLDivElement>(null);
  const isDark = dark.value;
  useEffect(() => {
    const node = el.current;
    if (!node) return;
    const css = getComputedStyle(document.documentElement);
    const color = (name: string) => css.getPropertyValue(name).trim();
    const axis = { stroke: color('--muted'), grid: { stroke: color('--grid'), width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width: node.clientWidth || 600,
        height: 200,
        legend: { show: false },
        cursor: { y: false },
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        axes: [axis, { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => metricText(metric, t)) }],
        series: [{}, { label: metric, stroke: color('--accent'), width: 2, spanGaps: false }],
      },
      [buckets.map((b) => Date.parse(b.bucket) / 1000), buckets.map((b) => b.value)],
      node,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: node.clientWidth, height: 200 }));
    resize.observe(node);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [buckets, metric, isDark]);
  const withData = buckets.filter((b) => b.value !== null).length;
  return (
    <div
      ref={el}
      class="plot"
      data-buckets={buckets.length}
      role="img"
      aria-label={`${metric.toUpperCase()} over ${buckets.length} buckets, ${withData} with samples`}
    />
  );
}

// The score card and one card per metric: value at the percentile, rating, samples, and the shares of
// good, needs-improvement and poor samples as a bar with its numbers written out.
import { count, percent } from '../../format.ts';
import { metricText, ratingText } from './format.ts';
import { METRICS, type Metric } from './state.ts';

type Shares = { good: number; needsImprovement: number; poor: number };
export type MetricAnswer = {
  value: number | null;
  rating: string | null;
  score: number | null;
  samples: number;
  shares: Shares;
};
export type SpeedSummary = {
  score: number | null;
  rating: string | null;
  samples: number;
  metrics: Record<Metric, MetricAnswer>;
};

export function Summary({ data, percentile, loading }: { data: SpeedSummary; percentile: string; loading: boolean }) {
  return (
    <div class="speed-summary" data-loaded={loading ? 'false' : 'true'}>
      <section class="card score-card" aria-labelledby="score-title">
        <h2 id="score-title">Speed score</h2>
        <p class={`score ${data.rating ?? 'none'}`} data-score={data.score ?? ''}>
          {data.score ?? '–'}
        </p>
        <p class="rating">{ratingText(data.rating)}</p>
        <p class="muted">{count(data.samples)} samples</p>
      </section>
      {METRICS.map((m) => (
        <MetricCard key={m} metric={m} answer={data.metrics[m]} percentile={percentile} />
      ))}
    </div>
  );
}

function MetricCard({ metric, answer: a, percentile }: { metric: Metric; answer: MetricAnswer; percentile: string }) {
  return (
    <section class="card metric-card" data-metric={metric} aria-label={`${metric.toUpperCase()} at p${percentile}`}>
      <h2>
        {metric.toUpperCase()} <span class="muted">p{percentile}</span>
      </h2>
      <p class={`metric-value ${a.rating ?? 'none'}`}>{metricText(metric, a.value)}</p>
      <p class="rating">
        {ratingText(a.rating)} <span class="muted">· {count(a.samples)} samples</span>
      </p>
      <ShareBar shares={a.shares} />
    </section>
  );
}

export function ShareBar({ shares }: { shares: Shares }) {
  const parts = [
    ['good', 'Good', shares.good],
    ['ni', 'Needs improvement', shares.needsImprovement],
    ['poor', 'Poor', shares.poor],
  ] as const;
  return (
    <>
      <div class="share-bar" aria-hidden="true">
        {parts.map(([k, , v]) => (
          <span key={k} class={k} style={{ width: `${v * 100}%` }} />
        ))}
      </div>
      <ul class="shares">
        {parts.map(([k, label, v]) => (
          <li key={k} data-share={k}>
            <span class={`dot ${k}`} aria-hidden="true" />
            {label} {percent(v)}
          </li>
        ))}
      </ul>
    </>
  );
}

// Routes sorted by score (worst first, so what to fix leads) and the worst elements of the picked metric
// (LCP element, INP target, largest CLS shift; the SDK names them), largest value first.
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { count } from '../../format.ts';
import type { MetricAnswer } from './summary.tsx';
import { metricText, ratingText } from './format.ts';
import type { Metric, SpeedState } from './state.ts';

type RouteRow = { route: string | null; score: number | null; rating: string | null; samples: number } & Record<
  Metric,
  MetricAnswer
>;
type ElementRow = { element: string | null; samples: number; value: number | null; rating: string | null };

const byScore = (a: RouteRow, b: RouteRow) => (a.score ?? 101) - (b.score ?? 101) || b.samples - a.samples;

export function RoutesTable({ base, query, ready }: { base: string; query: Record<string, string>; ready: boolean }) {
  const key = `${authKey.value}|${base}|routes|${JSON.stringify(query)}`;
  const rows = useLoad(ready ? key : null, (signal) =>
    get<{ data: RouteRow[] }>(`${base}/routes`, { ...query, limit: 100 }, signal).then((r) =>
      [...r.data].sort(byScore),
    ),
  );
  return (
    <section class="card panel" aria-labelledby="routes-title">
      <h2 id="routes-title">Routes by score</h2>
      {rows.error ? <ErrorNote error={rows.error} /> : null}
      {!rows.data && !rows.error ? <Loading /> : null}
      {rows.data?.length === 0 ? <Empty>No speed samples in this range.</Empty> : null}
      {rows.data?.length ? (
        <table class="speed-routes">
          <thead>
            <tr>
              <th scope="col">Route</th>
              <th scope="col" class="num">
                Score
              </th>
              <th scope="col" class="num">
                LCP
              </th>
              <th scope="col" class="num">
                INP
              </th>
              <th scope="col" class="num">
                CLS
              </th>
              <th scope="col" class="num">
                Samples
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.data.map((r) => (
              <tr key={r.route ?? ''} data-route={r.route ?? ''}>
                <th scope="row">{r.route ?? '(none)'}</th>
                <td class={`num ${r.rating ?? ''}`} title={ratingText(r.rating)}>
                  {r.score ?? '–'}
                </td>
                <td class="num">{metricText('lcp', r.lcp.value)}</td>
                <td class="num">{metricText('inp', r.inp.value)}</td>
                <td class="num">{metricText('cls', r.cls.value)}</td>
                <td class="num">{count(r.samples)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

type ElementsProps = { base: string; state: SpeedState; query: Record<string, string>; ready: boolean };

export function Elements({ base, state, query, ready }: ElementsProps) {
  const named = state.metric === 'lcp' || state.metric === 'inp' || state.metric === 'cls';
  const rows = useLoad(
    named && ready ? `${authKey.value}|${base}|elements|${state.metric}|${JSON.stringify(query)}` : null,
    (signal) =>
      get<{ data: ElementRow[] }>(`${base}/elements`, { ...query, metric: state.metric, limit: 100 }, signal).then(
        (r) => [...r.data].sort((a, b) => (b.value ?? -1) - (a.value ?? -1)).slice(0, 10),
      ),
  );
  return (
    <section class="card panel" aria-labelledby="elements-title">
      <h2 id="elements-title">Worst elements · {state.metric.toUpperCase()}</h2>
      {!named ? <Empty>Elements are reported for LCP, INP and CLS. Pick one of those metrics.</Empty> : null}
      {rows.error ? <ErrorNote error={rows.error} /> : null}
      {named && !rows.data && !rows.error ? <Loading /> : null}
      {rows.data?.length === 0 ? <Empty>No element was reported for this metric in this range.</Empty> : null}
      {rows.data?.length ? (
        <table class="speed-elements">
          <thead>
            <tr>
              <th scope="col">Element</th>
              <th scope="col" class="num">
                Value
              </th>
              <th scope="col">Rating</th>
              <th scope="col" class="num">
                Samples
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.data.map((r) => (
              <tr key={r.element ?? ''}>
                <th scope="row">
                  <code>{r.element ?? '(unknown)'}</code>
                </th>
                <td class="num">{metricText(state.metric, r.value)}</td>
                <td>{ratingText(r.rating)}</td>
                <td class="num">{count(r.samples)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

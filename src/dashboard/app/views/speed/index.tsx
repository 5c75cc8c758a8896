// Speed (Web Vitals): the score with its rating, each metric at the chosen percentile with its good /
// needs-improvement / poor shares, routes by score, a metric's time series and the worst elements.
// Device, percentile, range and metric are pickers held in the address. The other reads start once the
// summary has arrived: the embedded database answers one query at a time, and the score should come first.
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote, Loading } from '../../components/notes.tsx';
import { setParams } from '../../components/view-query.ts';
import type { ProjectViewProps } from '../index.ts';
import { SpeedSeries } from './series.tsx';
import { Summary, type SpeedSummary } from './summary.tsx';
import { Elements, RoutesTable } from './tables.tsx';
import { DEVICES, METRICS, METRIC_LABELS, PERCENTILES, RANGES, readSpeedState, speedQuery } from './state.ts';

export default function Speed({ project }: ProjectViewProps) {
  const state = readSpeedState();
  const query = speedQuery(state);
  const base = `/v2/projects/${encodeURIComponent(project)}/speed`;
  const key = `${authKey.value}|${project}|${JSON.stringify(query)}`;
  const summary = useLoad(key, (signal) => get<{ data: SpeedSummary }>(base, query, signal).then((r) => r.data));
  const ready = Boolean(summary.data || summary.error);
  const set = (name: string, value: string, fallback: string) =>
    setParams(project, 'speed', { [name]: value === fallback ? null : value });
  return (
    <div class="speed-view">
      <h1>Speed</h1>
      <div class="controls" role="group" aria-label="Speed options">
        <Picker label="Range" value={state.range} onPick={(v) => set('range', v, '7d')}>
          {RANGES.map((r) => [r.key, r.label])}
        </Picker>
        <Picker label="Device" value={state.device} onPick={(v) => set('device', v, 'all')}>
          {DEVICES.map((d) => [d, d === 'all' ? 'All devices' : d === 'mobile' ? 'Mobile and tablet' : 'Desktop'])}
        </Picker>
        <Picker label="Percentile" value={state.percentile} onPick={(v) => set('percentile', v, '75')}>
          {PERCENTILES.map((p) => [p, `p${p}`])}
        </Picker>
        <Picker label="Metric" value={state.metric} onPick={(v) => set('metric', v, 'lcp')}>
          {METRICS.map((m) => [m, `${m.toUpperCase()} · ${METRIC_LABELS[m]}`])}
        </Picker>
      </div>
      {summary.error ? <ErrorNote error={summary.error} /> : null}
      {!summary.data && !summary.error ? <Loading label="Loading speed…" /> : null}
      {summary.data ? <Summary data={summary.data} percentile={state.percentile} loading={summary.loading} /> : null}
      <SpeedSeries base={base} state={state} query={query} ready={ready} />
      <div class="panels">
        <RoutesTable base={base} query={query} ready={ready} />
        <Elements base={base} state={state} query={query} ready={ready} />
      </div>
    </div>
  );
}

function Picker(props: { label: string; value: string; onPick: (v: string) => void; children: string[][] }) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onPick((e.currentTarget as HTMLSelectElement).value)}>
        {props.children.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

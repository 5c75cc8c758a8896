// The six headline numbers (GET …/stats) with their change against the previous range. Each is a
// button that picks the metric the time series shows.
import { useEffect } from 'preact/hooks';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { ErrorNote } from '../../components/notes.tsx';
import { change, statText as show } from '../../format.ts';
import { METRICS, readQuery, type StatKey } from '../../query-state.ts';
import type { Ctx } from './index.tsx';

type Stat = { value: number; previous: number; change: number | null };
export type Stats = Record<StatKey, Stat>;

export function Headline({ ctx }: { ctx: Ctx }) {
  const query = readQuery(ctx.state);
  const stats = useLoad(
    `${authKey.value}|${ctx.project}|${JSON.stringify(query)}`,
    (signal) =>
      get<{ data: Stats }>(`/v2/projects/${encodeURIComponent(ctx.project)}/stats`, query, signal).then((r) => r.data),
    ctx.tick,
  );
  useEffect(() => {
    if (!ctx.ready && (stats.data || stats.error)) ctx.onReady();
  }, [stats.data, stats.error]);
  if (stats.error) return <ErrorNote error={stats.error} />;
  return (
    <div class="headline" aria-busy={stats.loading} data-loaded={stats.data ? 'true' : 'false'}>
      {METRICS.map((m) => {
        const s = stats.data?.[m.key];
        // A lower bounce rate is the better news.
        const c = change(s?.change, s?.value ?? 0);
        const tone = m.key === 'bounceRate' && c.tone !== 'flat' ? (c.tone === 'up' ? 'down' : 'up') : c.tone;
        return (
          <button
            key={m.key}
            class="stat"
            data-stat={m.key}
            aria-pressed={ctx.state.metric === m.key}
            onClick={() => ctx.update({ metric: m.key })}
          >
            <span class="stat-label">{m.label}</span>
            <span class="stat-value">{s ? show(m.key, s.value) : '…'}</span>
            <span class={`change ${tone}`}>
              {s ? (
                <>
                  {c.text}
                  <span class="sr-only"> against the previous range</span>
                </>
              ) : (
                ' '
              )}
            </span>
          </button>
        );
      })}
    </div>
  );
}

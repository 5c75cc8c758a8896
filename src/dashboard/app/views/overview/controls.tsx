// The overview's controls: period (with a custom range), traffic and environment, and the filter chips
// that rows add. Each change is a new address, so the back button and bookmarks keep it.
import { useSignal } from '@preact/signals';
import { ENVIRONMENTS, PERIODS, TRAFFIC, type Period } from '../../query-state.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import type { Ctx } from './index.tsx';

const PERIOD_LABELS: Record<Period, string> = {
  today: 'Today',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  '12mo': 'Last 12 months',
  all: 'All time',
  custom: 'Custom range…',
};

export function Controls({ ctx }: { ctx: Ctx }) {
  const { state, update } = ctx;
  const custom = useSignal(state.period === 'custom');
  const today = new Date().toISOString().slice(0, 10);
  const from = useSignal(state.from || today);
  const to = useSignal(state.to || today);
  return (
    <div class="controls" role="group" aria-label="Range and traffic">
      <label>
        Period
        <select
          value={custom.value ? 'custom' : state.period}
          onChange={(e) => {
            const p = (e.currentTarget as HTMLSelectElement).value as Period;
            custom.value = p === 'custom';
            if (p !== 'custom') update({ period: p, from: '', to: '' });
          }}
        >
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {PERIOD_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      {custom.value ? (
        <form
          class="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            if (from.value <= to.value) update({ period: 'custom', from: from.value, to: to.value });
          }}
        >
          <label>
            From
            <input type="date" value={from.value} max={to.value} onInput={(e) => (from.value = value(e))} />
          </label>
          <label>
            To
            <input type="date" value={to.value} min={from.value} onInput={(e) => (to.value = value(e))} />
          </label>
          <button type="submit">Apply</button>
        </form>
      ) : null}
      <label>
        Traffic
        <select value={state.traffic} onChange={(e) => update({ traffic: value(e) as Ctx['state']['traffic'] })}>
          {TRAFFIC.map((t) => (
            <option key={t} value={t}>
              {t === 'human' ? 'Humans' : t === 'bots' ? 'Bots' : t === 'internal' ? 'Internal' : 'All traffic'}
            </option>
          ))}
        </select>
      </label>
      <label>
        Environment
        <select
          value={state.environment}
          onChange={(e) => update({ environment: value(e) as Ctx['state']['environment'] })}
        >
          {ENVIRONMENTS.map((env) => (
            <option key={env} value={env}>
              {env === 'all' ? 'All environments' : env[0]!.toUpperCase() + env.slice(1)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;

export function Chips({ ctx }: { ctx: Ctx }) {
  const entries = Object.entries(ctx.state.filters);
  if (entries.length === 0) return null;
  const set = (filters: Record<string, string>) => ctx.update({ filters });
  return (
    <ul class="chips" aria-label="Filters">
      {entries.map(([dim, raw]) => {
        const exclude = raw.startsWith('!');
        const shown = exclude ? raw.slice(1) : raw;
        return (
          <li class="chip" key={dim}>
            <button
              class="chip-op"
              title="Switch between is and is not"
              onClick={() => set({ ...ctx.state.filters, [dim]: exclude ? shown : `!${shown}` })}
            >
              {dim.replace(/_/g, ' ')} {exclude ? 'is not' : 'is'} <strong>{shown}</strong>
            </button>
            <button
              class="chip-remove"
              aria-label={`Remove the filter ${dim} ${exclude ? 'is not' : 'is'} ${shown}`}
              onClick={() => {
                const { [dim]: _, ...rest } = ctx.state.filters;
                set(rest);
              }}
            >
              ×
            </button>
          </li>
        );
      })}
      {entries.length > 1 ? (
        <li>
          <button class="link" onClick={() => set({})}>
            Clear all
          </button>
        </li>
      ) : null}
      <li class="chips-link">
        <a href={segmentRetention(ctx.project, ctx.state.filters)} onClick={onLinkClick}>
          Retention of this segment
        </a>
      </li>
    </ul>
  );
}

/** The retention view under the overview's filters (its segment), as readable as the overview's address. */
function segmentRetention(project: string, filters: Record<string, string>): string {
  const q = new URLSearchParams(Object.entries(filters).map(([k, v]) => [`filter[${k}]`, v]));
  return `${projectPath(project, 'retention')}?${q.toString().replace(/%5B/g, '[').replace(/%5D/g, ']')}`;
}

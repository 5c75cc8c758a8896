// The log stream's filters, with the API's names and values: level, kind and source as choices, visitor
// and text (q) as fields applied on submit. Each change is a new address (and a new stream).
import { useSignal } from '@preact/signals';
import { setParams } from '../../components/view-query.ts';

export const FILTER_NAMES = ['level', 'kind', 'source', 'visitor', 'q'] as const;
const CHOICES = {
  level: ['info', 'ok', 'warn', 'error'],
  kind: ['ingest', 'transport', 'pipeline', 'signals', 'jobs', 'auth'],
  source: ['api', 'sdk', 'engine', 'cron'],
} as const;

export function Filters({ project, filters }: { project: string; filters: Record<string, string> }) {
  const visitor = useSignal(filters.visitor ?? '');
  const q = useSignal(filters.q ?? '');
  const set = (patch: Record<string, string | null>) => setParams(project, 'logs', patch);
  return (
    <form
      class="controls log-filters"
      aria-label="Log filters"
      onSubmit={(e) => {
        e.preventDefault();
        set({ visitor: visitor.value.trim().slice(0, 128) || null, q: q.value.trim().slice(0, 200) || null });
      }}
    >
      {(Object.keys(CHOICES) as (keyof typeof CHOICES)[]).map((name) => (
        <label key={name}>
          {name[0]!.toUpperCase() + name.slice(1)}
          <select
            name={name}
            value={filters[name] ?? ''}
            onChange={(e) => set({ [name]: (e.currentTarget as HTMLSelectElement).value || null })}
          >
            <option value="">Any</option>
            {CHOICES[name].map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </label>
      ))}
      <label>
        Visitor
        <input
          name="visitor"
          value={visitor.value}
          maxLength={128}
          onInput={(e) => (visitor.value = (e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <label>
        Message contains
        <input
          name="q"
          type="search"
          value={q.value}
          maxLength={200}
          onInput={(e) => (q.value = (e.currentTarget as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Apply</button>
    </form>
  );
}

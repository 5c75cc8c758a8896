// Retention: the cohort grid (GET …/retention), a row per week or month of first visit, a column per
// period after it, each cell the share of the cohort that came back, shaded by that share. Interval and
// range are pickers held in the address, and so is a segment: the overview's filters (`filter[…]`), which
// its "Retention of this segment" link brings, each removable here.
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { pickParam, readParams, setParams } from '../../components/view-query.ts';
import { count, percent } from '../../format.ts';
import type { ProjectViewProps } from '../index.ts';

type Cohort = { cohort: string; visitors: number; periods: { offset: number; visitors: number; share: number }[] };
const INTERVALS = ['week', 'month'] as const;
const PERIODS = [
  ['30d', 'Last 30 days', 30],
  ['90d', 'Last 90 days', 90],
  ['12mo', 'Last 12 months', 365],
] as const;
const DAY = 86_400_000;

/** The range through the end of today (UTC): this week's and this month's newcomers are a cohort too. */
function rangeOf(period: string, now = Date.now()) {
  const days = PERIODS.find((p) => p[0] === period)?.[2] ?? 90;
  const end = (Math.floor(now / DAY) + 1) * DAY;
  return { from: new Date(end - days * DAY).toISOString(), to: new Date(end).toISOString() };
}

export default function Retention({ project }: ProjectViewProps) {
  const interval = pickParam('interval', INTERVALS, 'week');
  const period = pickParam(
    'period',
    PERIODS.map((p) => p[0]),
    interval === 'week' ? '90d' : '12mo',
  );
  const segment = [...readParams()].filter(([k, v]) => /^filter\[.+\]$/.test(k) && v);
  const query = { interval, ...rangeOf(period), ...Object.fromEntries(segment) };
  const grid = useLoad(`${authKey.value}|${project}|${JSON.stringify(query)}`, (signal) =>
    get<{ data: Cohort[] }>(`/v2/projects/${encodeURIComponent(project)}/retention`, query, signal).then((r) => r.data),
  );
  const width = Math.max(0, ...(grid.data ?? []).map((c) => c.periods.length));
  const unit = interval === 'week' ? 'Week' : 'Month';
  return (
    <section class="retention-view" aria-labelledby="retention-title">
      <h1 id="retention-title">Retention</h1>
      <div class="controls" role="group" aria-label="Retention options">
        <label>
          Cohorts by
          <select
            value={interval}
            onChange={(e) =>
              setParams(project, 'retention', {
                interval: (e.currentTarget as HTMLSelectElement).value === 'month' ? 'month' : null,
                period: null,
              })
            }
          >
            <option value="week">Week of first visit</option>
            <option value="month">Month of first visit</option>
          </select>
        </label>
        <label>
          Period
          <select
            value={period}
            onChange={(e) => setParams(project, 'retention', { period: (e.currentTarget as HTMLSelectElement).value })}
          >
            {PERIODS.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Segment project={project} segment={segment} />
      {grid.error ? <ErrorNote error={grid.error} /> : null}
      {!grid.data && !grid.error ? <Loading label="Loading cohorts…" /> : null}
      {grid.data?.length === 0 ? (
        <Empty>No visitors in this range. Pick a longer period, or send events to this project.</Empty>
      ) : null}
      {grid.data?.length ? (
        <div class="table-wrap">
          <table class="retention" data-interval={interval}>
            <caption>
              Share of each cohort's visitors who came back, by {interval} after their first visit (UTC)
            </caption>
            <thead>
              <tr>
                <th scope="col">Cohort</th>
                <th scope="col" class="num">
                  Visitors
                </th>
                {Array.from({ length: width }, (_, i) => (
                  <th key={i} scope="col" class="num">
                    {unit} {i}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {grid.data.map((c) => (
                <tr key={c.cohort} data-cohort={c.cohort}>
                  <th scope="row">{label(c.cohort, interval)}</th>
                  <td class="num">{count(c.visitors)}</td>
                  {Array.from({ length: width }, (_, i) => {
                    const p = c.periods.find((x) => x.offset === i);
                    if (!p) return <td key={i} />;
                    // Shaded by the square root, so small shares (most returns) can still be told apart.
                    return (
                      <td
                        key={i}
                        class="num cell"
                        data-offset={i}
                        style={{ '--shade': String(Math.sqrt(p.share)) }}
                        title={`${count(p.visitors)} visitors`}
                      >
                        {percent(p.share, 1)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function label(iso: string, interval: string): string {
  const d = new Date(iso);
  if (interval === 'month') return d.toLocaleDateString('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return `Week of ${d.toLocaleDateString('en', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })}`;
}

/** The segment's filters as chips, each removable (the address loses it). */
function Segment({ project, segment }: { project: string; segment: [string, string][] }) {
  if (segment.length === 0) return null;
  return (
    <ul class="chips" aria-label="Segment">
      {segment.map(([key, raw]) => {
        const dim = key.slice('filter['.length, -1).replace(/_/g, ' ');
        const exclude = raw.startsWith('!');
        const said = `${dim} ${exclude ? 'is not' : 'is'}`;
        const shown = exclude ? raw.slice(1) : raw;
        return (
          <li class="chip" key={key}>
            <span class="chip-label">
              {said}&nbsp;<strong>{shown}</strong>
            </span>
            <button
              class="chip-remove"
              aria-label={`Remove the filter ${said} ${shown}`}
              onClick={() => setParams(project, 'retention', { [key]: null })}
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}

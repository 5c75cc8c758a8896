// One breakdown's rows (GET …/breakdown/{dimension}), or the world map for countries. A row's value is
// a button that adds it as a filter; "Export CSV" downloads every row through the API's format=csv.
import { useSignal } from '@preact/signals';
import { downloadCsv, get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { Lazy } from '../../components/lazy.tsx';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { count, countryName, percent } from '../../format.ts';
import { readQuery } from '../../query-state.ts';
import type { Ctx } from './index.tsx';

export type Tab = { dim: string; label: string; metric?: 'pageviews' | 'events'; map?: true };

const loadMap = () => import('./map.tsx');

type Row = { value: string | null; visitors: number; pageviews?: number; events?: number; share: number };

export function Rows({ ctx, tab, dimension }: { ctx: Ctx; tab: Tab; dimension: string }) {
  const more = useSignal(false);
  const csvError = useSignal<Error | null>(null);
  const query = readQuery(ctx.state);
  const metrics = tab.metric ? `visitors,${tab.metric}` : 'visitors';
  const path = `/v2/projects/${encodeURIComponent(ctx.project)}/breakdown/${encodeURIComponent(dimension)}`;
  const limit = more.value || tab.map ? 100 : 8;
  const rows = useLoad(
    ctx.ready ? `${authKey.value}|${path}|${metrics}|${limit}|${JSON.stringify(query)}` : null,
    (signal) => get<{ data: Row[] }>(path, { ...query, metrics, limit }, signal).then((r) => r.data),
    ctx.tick,
  );
  const exportCsv = () =>
    void downloadCsv(path, { ...query, metrics }, `${ctx.project}-${dimension.replace(':', '-')}.csv`).then(
      () => (csvError.value = null),
      (err: Error) => (csvError.value = err),
    );
  if (rows.error) return <ErrorNote error={rows.error} />;
  if (!rows.data) return <Loading />;
  if (rows.data.length === 0)
    return <Empty>Nothing to show for this range and these filters. Try a longer period or remove a filter.</Empty>;
  const filtered = dimension in ctx.state.filters;
  const pick = (value: string) => ctx.update({ filters: { ...ctx.state.filters, [dimension]: value } });
  if (tab.map) return <Lazy load={loadMap} props={{ rows: rows.data, onPick: filtered ? () => {} : pick }} />;
  return (
    <>
      <table class="rows" data-dimension={dimension}>
        <thead>
          <tr>
            <th scope="col">{tab.label}</th>
            <th scope="col" class="num">
              Visitors
            </th>
            {tab.metric ? (
              <th scope="col" class="num">
                {tab.metric === 'events' ? 'Events' : 'Views'}
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.data.map((r) => (
            <tr key={r.value ?? ''} style={{ '--share': percent(r.share, 1) }}>
              <th scope="row">
                {r.value === null || r.value === '' || filtered ? (
                  <span class="value">{label(dimension, r.value)}</span>
                ) : (
                  <button class="value" title={`Filter by ${dimension} ${r.value}`} onClick={() => pick(r.value!)}>
                    {label(dimension, r.value)}
                  </button>
                )}
              </th>
              <td class="num">{count(r.visitors)}</td>
              {tab.metric ? <td class="num">{count(r[tab.metric] ?? 0)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
      <div class="panel-foot">
        {rows.data.length >= limit || more.value ? (
          <button class="link" onClick={() => (more.value = !more.value)}>
            {more.value ? 'Show fewer' : 'Show more'}
          </button>
        ) : (
          <span />
        )}
        <button class="link" onClick={exportCsv}>
          Export CSV
        </button>
      </div>
      {csvError.value ? <ErrorNote error={csvError.value} /> : null}
    </>
  );
}

function label(dimension: string, value: string | null): string {
  if (value === null || value === '') return dimension === 'referrer_domain' ? 'Direct / none' : '(none)';
  if (dimension === 'country') return countryName(value);
  return value;
}

// The breakdown panels (GET …/breakdown/{dimension}): pages, sources, campaigns, locations, devices,
// events and a prop's values. A row's value is a button that adds it as a filter; each panel exports
// its rows as CSV through the API's format=csv.
import { useSignal } from '@preact/signals';
import { downloadCsv, get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { Lazy } from '../../components/lazy.tsx';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { count, countryName, percent } from '../../format.ts';
import { readQuery } from '../../query-state.ts';
import type { Ctx } from './index.tsx';

type Tab = { dim: string; label: string; metric?: 'pageviews' | 'events'; map?: true };

const loadMap = () => import('./map.tsx');
const PANELS: { title: string; tabs: Tab[] }[] = [
  {
    title: 'Pages',
    tabs: [
      { dim: 'page', label: 'Top pages', metric: 'pageviews' },
      { dim: 'entry_page', label: 'Entry pages' },
      { dim: 'exit_page', label: 'Exit pages' },
    ],
  },
  {
    title: 'Sources',
    tabs: [
      { dim: 'channel', label: 'Channels' },
      { dim: 'referrer_domain', label: 'Referrers' },
    ],
  },
  {
    title: 'Campaigns',
    tabs: ['source', 'medium', 'campaign', 'term', 'content'].map((k) => ({
      dim: `utm_${k}`,
      label: k[0]!.toUpperCase() + k.slice(1),
    })),
  },
  {
    title: 'Locations',
    tabs: [
      { dim: 'country', label: 'Map', map: true },
      { dim: 'country', label: 'Countries' },
      { dim: 'region', label: 'Regions' },
      { dim: 'city', label: 'Cities' },
    ],
  },
  {
    title: 'Devices',
    tabs: [
      { dim: 'browser', label: 'Browsers' },
      { dim: 'os', label: 'OS' },
      { dim: 'device', label: 'Devices' },
    ],
  },
  {
    title: 'Events',
    tabs: [
      { dim: 'event', label: 'Events', metric: 'events' },
      { dim: 'prop', label: 'Properties', metric: 'events' },
    ],
  },
];

export function Panels({ ctx }: { ctx: Ctx }) {
  return (
    <>
      {PANELS.map((p) => (
        <Panel key={p.title} ctx={ctx} title={p.title} tabs={p.tabs} />
      ))}
    </>
  );
}

function Panel({ ctx, title, tabs }: { ctx: Ctx; title: string; tabs: Tab[] }) {
  const active = useSignal(0);
  const tab = tabs[active.value]!;
  const id = `panel-${title.toLowerCase()}`;
  return (
    <section class="card panel" aria-labelledby={id} data-panel={title.toLowerCase()}>
      <div class="panel-head">
        <h2 id={id}>{title}</h2>
        {tabs.length > 1 ? (
          <div class="tabs" role="group" aria-label={`${title}: show`}>
            {tabs.map((t, i) => (
              <button key={t.label} aria-pressed={i === active.value} onClick={() => (active.value = i)}>
                {t.label}
              </button>
            ))}
          </div>
        ) : null}
      </div>
      {tab.dim === 'prop' ? <PropRows ctx={ctx} tab={tab} /> : <Rows ctx={ctx} tab={tab} dimension={tab.dim} />}
    </section>
  );
}

function PropRows({ ctx, tab }: { ctx: Ctx; tab: Tab }) {
  const draft = useSignal(ctx.state.prop);
  return (
    <>
      <form
        class="prop-form"
        onSubmit={(e) => {
          e.preventDefault();
          ctx.update({ prop: draft.value.trim() });
        }}
      >
        <label>
          Property
          <input
            value={draft.value}
            placeholder="plan"
            pattern="[A-Za-z0-9_.$\-]{1,64}"
            onInput={(e) => (draft.value = (e.currentTarget as HTMLInputElement).value)}
          />
        </label>
        <button type="submit">Show</button>
      </form>
      {ctx.state.prop ? (
        <Rows ctx={ctx} tab={tab} dimension={`prop:${ctx.state.prop}`} />
      ) : (
        <Empty>Type the name of a property your events carry (for example plan) to see its values.</Empty>
      )}
    </>
  );
}

type Row = { value: string | null; visitors: number; pageviews?: number; events?: number; share: number };

function Rows({ ctx, tab, dimension }: { ctx: Ctx; tab: Tab; dimension: string }) {
  const more = useSignal(false);
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
    void downloadCsv(path, { ...query, metrics }, `${ctx.project}-${dimension.replace(':', '-')}.csv`).catch(
      (err: Error) => alert(err.message),
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
    </>
  );
}

function label(dimension: string, value: string | null): string {
  if (value === null || value === '') return dimension === 'referrer_domain' ? 'Direct / none' : '(none)';
  if (dimension === 'country') return countryName(value);
  return value;
}

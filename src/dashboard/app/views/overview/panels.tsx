// The breakdown panels: pages, sources, campaigns, locations, devices, events and a prop's values, each
// with tabs for its dimensions (rows.tsx reads and draws them).
import { useSignal } from '@preact/signals';
import { Empty } from '../../components/notes.tsx';
import type { Ctx } from './index.tsx';
import { Rows, type Tab } from './rows.tsx';

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

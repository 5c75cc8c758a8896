// The visitors list: GET /v2/projects/{p}/visitors under the address's range, traffic, environment and
// filters (a form adds one: dimension, is / is not, value), one page at a time, most recently active first.
import { useSignal } from '@preact/signals';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { count, countryName } from '../../format.ts';
import { projectApi } from '../../project-info.ts';
import { readQuery, readState, writeState, type ViewState } from '../../query-state.ts';
import { navigate, onLinkClick, projectPath } from '../../router.ts';
import { Chips, Controls } from '../overview/controls.tsx';
import type { Ctx } from '../overview/index.tsx';
import { Exports } from './exports.tsx';
import { FilterForm } from './filter-form.tsx';
import { when } from './when.ts';

export type VisitorRow = {
  id: string;
  lastEventInRange: string;
  pageviews: number;
  sessions: number;
  events: number;
  firstSeen: string;
  lastSeen: string;
  userId: string | null;
  country: string | null;
  device: { type: string | null; browser: string | null; os: string | null };
  isInternal: boolean;
  botScore: number;
};

const PAGE = 50;

export function VisitorList({ project, search }: { project: string; search: string }) {
  const state = readState(search);
  const update = (patch: Partial<ViewState>) =>
    navigate(projectPath(project, 'people') + writeState({ ...state, ...patch }));
  const ctx: Ctx = { project, state, update, tick: 0, ready: true, onReady: () => undefined };
  const query = readQuery(state);
  const path = projectApi(project, '/visitors');
  // The cursors of the pages before this one, so "Previous page" needs no read of its own.
  // Kept with the read they page through: new filters start again at the first page.
  const pages = useSignal<{ key: string; cursors: string[] }>({ key: '', cursors: [] });
  const key = `${authKey.value}|${project}|${JSON.stringify(query)}`;
  const cursors = pages.value.key === key ? pages.value.cursors : [];
  const go = (next: string[]) => (pages.value = { key, cursors: next });
  const cursor = cursors.at(-1);
  const list = useLoad(`${key}|${cursor ?? ''}`, (signal) =>
    get<{ data: VisitorRow[]; nextCursor: string | null }>(path, { ...query, limit: PAGE, cursor }, signal),
  );
  return (
    <section class="people" aria-labelledby="people-title">
      <h1 id="people-title">People</h1>
      <Controls ctx={ctx} />
      <FilterForm onAdd={(dim, value) => update({ filters: { ...state.filters, [dim]: value } })} />
      <Chips ctx={ctx} />
      <Exports path={path} query={query} name={`${project}-visitors`} what="visitors" />
      {list.error ? (
        <ErrorNote error={list.error} />
      ) : !list.data ? (
        <Loading label="Loading visitors…" />
      ) : list.data.data.length === 0 ? (
        <Empty>No visitors in this range with these filters. Try a longer period or remove a filter.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="visitors" data-loaded={list.loading ? 'false' : 'true'}>
            <caption>
              Visitors with events in the range, most recently active first
              {cursors.length > 0 ? ` (page ${cursors.length + 1})` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Visitor</th>
                <th scope="col">Last active</th>
                <th scope="col" class="num">
                  Visits
                </th>
                <th scope="col" class="num">
                  Pageviews
                </th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col">Country</th>
                <th scope="col">Device</th>
                <th scope="col" class="num">
                  Bot score
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((v) => (
                <tr key={v.id} data-visitor={v.id}>
                  <th scope="row">
                    <a href={projectPath(project, 'people') + `/${encodeURIComponent(v.id)}`} onClick={onLinkClick}>
                      {v.userId ?? v.id}
                    </a>
                    {v.isInternal ? <span class="badge">internal</span> : null}
                  </th>
                  <td>{when(v.lastEventInRange)}</td>
                  <td class="num">{count(v.sessions)}</td>
                  <td class="num">{count(v.pageviews)}</td>
                  <td class="num">{count(v.events)}</td>
                  <td>{v.country ? countryName(v.country) : '–'}</td>
                  <td>{[v.device.type, v.device.browser, v.device.os].filter(Boolean).join(' · ') || '–'}</td>
                  <td class="num">{v.botScore}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="pager">
            {cursors.length > 0 ? <button onClick={() => go(cursors.slice(0, -1))}>Previous page</button> : null}
            {list.data.nextCursor ? (
              <button onClick={() => go([...cursors, list.data!.nextCursor!])}>Next page</button>
            ) : null}
          </div>
        </div>
      )}
    </section>
  );
}

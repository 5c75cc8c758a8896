// One issue: its header (status, counts, first and last seen, releases), the lifecycle buttons, the chosen
// event's parsed stack (in-app frames first) and breadcrumbs as a timeline, and the latest events with
// device and page. The API has no single-issue read, so the issue is found in the list's pages.
import { useSignal } from '@preact/signals';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { count } from '../../format.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import { Lifecycle } from './lifecycle.tsx';
import { releases } from './list.tsx';
import { Breadcrumbs, Stack } from './stack.tsx';
import { issuesPath, when, type Issue, type IssueEvent, type Page } from './types.ts';

const MAX_PAGES = 50;

async function findIssue(project: string, id: string, signal: AbortSignal): Promise<Issue | null> {
  let cursor: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: Page<Issue> = await get<Page<Issue>>(issuesPath(project), { limit: 100, cursor }, signal);
    const found = page.data.find((x) => x.id === id);
    if (found) return found;
    cursor = page.nextCursor;
    if (!cursor) return null;
  }
  return null;
}

export function IssuePage({ project, id, tick }: { project: string; id: string; tick: number }) {
  const own = useSignal(0);
  const key = `${authKey.value}|${project}|${id}|${own.value}`;
  const issue = useLoad(key, (signal) => findIssue(project, id, signal), tick);
  const events = useLoad(
    key,
    (signal) => get<Page<IssueEvent>>(`${issuesPath(project)}/${encodeURIComponent(id)}/events`, { limit: 10 }, signal),
    tick,
  );
  const picked = useSignal<string | null>(null);
  const back = (
    <a href={projectPath(project, 'errors')} onClick={onLinkClick}>
      ← All issues
    </a>
  );
  if (issue.error) return <ErrorNote error={issue.error} />;
  if (!issue.data && issue.loading) return <Loading label="Loading the issue…" />;
  if (!issue.data)
    return (
      <>
        {back}
        <Empty>There is no issue {id} in this project.</Empty>
      </>
    );
  const i = issue.data;
  const list = events.data?.data ?? [];
  const shown = list.find((e) => e.id === picked.value) ?? list[0];
  return (
    <article class="issue" data-status={i.status}>
      {back}
      <h1>
        {i.title}
        {i.isRegression ? <span class="badge regression">regression</span> : null}
      </h1>
      <p class="muted culprit">{i.culprit ?? 'No in-app frame'}</p>
      <dl class="facts">
        <Fact label="Status" value={i.status} name="status" />
        <Fact label="Events" value={count(i.count)} name="count" />
        <Fact label="Visitors" value={count(i.visitors)} name="visitors" />
        <Fact label="First seen" value={when(i.firstSeen)} name="firstSeen" />
        <Fact label="Last seen" value={when(i.lastSeen)} name="lastSeen" />
        <Fact label="Releases" value={releases(i)} name="releases" />
        {i.resolvedAt ? <Fact label="Resolved" value={when(i.resolvedAt)} name="resolvedAt" /> : null}
      </dl>
      <Lifecycle project={project} issue={i} onChanged={() => own.value++} />
      {events.error ? <ErrorNote error={events.error} /> : null}
      {shown ? (
        <div class="issue-detail">
          <section class="card" aria-labelledby="stack-title">
            <h2 id="stack-title">
              {shown.error.type}: {shown.error.message}
            </h2>
            <p class="muted">
              Event {shown.id} at {when(shown.ts)}
            </p>
            <Stack frames={shown.error.stack} />
          </section>
          <section class="card" aria-labelledby="crumbs-title">
            <h2 id="crumbs-title">Breadcrumbs</h2>
            <Breadcrumbs crumbs={shown.breadcrumbs} at={shown.ts} />
          </section>
        </div>
      ) : null}
      <Events events={list} shown={shown?.id} onPick={(e) => (picked.value = e)} />
    </article>
  );
}

function Fact({ label, value, name }: { label: string; value: string; name: string }) {
  return (
    <div data-fact={name}>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}

function Events({ events, shown, onPick }: { events: IssueEvent[]; shown?: string; onPick: (id: string) => void }) {
  if (events.length === 0) return null;
  return (
    <div class="table-wrap">
      <table class="issue-events">
        <caption>Latest events, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Page</th>
            <th scope="col">Device</th>
            <th scope="col">Release</th>
            <th scope="col">Visitor</th>
            <th scope="col">
              <span class="sr-only">Stack</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id} data-event={e.id}>
              <th scope="row">{when(e.ts)}</th>
              <td data-col="page">{e.page.path ?? '–'}</td>
              <td data-col="device">{device(e.device)}</td>
              <td>{e.release ?? '–'}</td>
              <td class="mono">{e.visitor}</td>
              <td>
                <button aria-pressed={e.id === shown} onClick={() => onPick(e.id)}>
                  Show stack
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function device(d: IssueEvent['device']): string {
  const browser = [d.browser, d.browserVersion].filter(Boolean).join(' ');
  const os = [d.os, d.osVersion].filter(Boolean).join(' ');
  return [browser, os, d.type].filter(Boolean).join(' · ') || '–';
}

// The issues list: a tab per status (in the address as ?status=), each issue with its count, visitors,
// first and last seen, releases and a sparkline of its last 14 days; "Show more" follows nextCursor.
import { useSignal } from '@preact/signals';
import { get } from '../../api.ts';
import { authKey } from '../../auth.ts';
import { useLoad } from '../../components/load.ts';
import { Empty, ErrorNote, Loading } from '../../components/notes.tsx';
import { Sparkline } from '../../components/sparkline.tsx';
import { pickParam, setParams } from '../../components/view-query.ts';
import { count } from '../../format.ts';
import { onLinkClick, projectPath } from '../../router.ts';
import { issuesPath, when, type Issue, type IssueEvent, type Page } from './types.ts';

const TABS = ['open', 'resolved', 'ignored', 'all'] as const;
const DAY = 86_400_000;
const SPARK_DAYS = 14;

export function IssueList({ project, tick }: { project: string; tick: number }) {
  const status = pickParam('status', TABS, 'open');
  const pages = useSignal(1);
  const list = useLoad(
    `${authKey.value}|${project}|${status}|${pages.value}`,
    async (signal) => {
      // Every page so far is read again, so a live refresh keeps what "Show more" opened.
      const rows: Issue[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < pages.value; i++) {
        const query = { status: status === 'all' ? undefined : status, limit: 25, cursor };
        const page: Page<Issue> = await get<Page<Issue>>(issuesPath(project), query, signal);
        rows.push(...page.data);
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      return { rows, more: cursor !== null };
    },
    tick,
  );
  return (
    <section aria-labelledby="issues-title">
      <h1 id="issues-title">Errors</h1>
      <div class="tabs" role="group" aria-label="Status">
        {TABS.map((t) => (
          <button
            key={t}
            aria-pressed={status === t}
            onClick={() => {
              pages.value = 1;
              setParams(project, 'errors', { status: t === 'open' ? null : t });
            }}
          >
            {t[0]!.toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {!list.data && !list.error ? <Loading label="Loading issues…" /> : null}
      {list.data && list.data.rows.length === 0 ? (
        <Empty>
          No {status === 'all' ? '' : `${status} `}issues. Errors your site sends (the SDK's errors plugin) are grouped
          here.
        </Empty>
      ) : null}
      {list.data && list.data.rows.length > 0 ? (
        <div class="table-wrap">
          <table class="issues" data-loaded={list.loading ? 'false' : 'true'}>
            <caption class="sr-only">Issues, most recently seen first</caption>
            <thead>
              <tr>
                <th scope="col">Issue</th>
                <th scope="col" class="num">
                  Events
                </th>
                <th scope="col" class="num">
                  Visitors
                </th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
                <th scope="col">Releases</th>
                <th scope="col">Last {SPARK_DAYS} days</th>
              </tr>
            </thead>
            <tbody>
              {list.data.rows.map((i) => (
                <IssueRow key={i.id} project={project} issue={i} />
              ))}
            </tbody>
          </table>
          {list.data.more ? <button onClick={() => pages.value++}>Show more</button> : null}
        </div>
      ) : null}
    </section>
  );
}

function IssueRow({ project, issue: i }: { project: string; issue: Issue }) {
  const href = `${projectPath(project, 'errors')}/${encodeURIComponent(i.id)}`;
  return (
    <tr data-issue={i.id}>
      <th scope="row">
        <a href={href} onClick={onLinkClick}>
          {i.title}
        </a>
        {i.isRegression ? <span class="badge regression">regression</span> : null}
        {i.status !== 'open' ? <span class="badge">{i.status}</span> : null}
        <div class="muted culprit">{i.culprit ?? ''}</div>
      </th>
      <td class="num" data-col="count">
        {count(i.count)}
      </td>
      <td class="num" data-col="visitors">
        {count(i.visitors)}
      </td>
      <td>{when(i.firstSeen)}</td>
      <td>{when(i.lastSeen)}</td>
      <td>{releases(i)}</td>
      <td>
        <IssueSpark project={project} issue={i} />
      </td>
    </tr>
  );
}

export const releases = (i: Issue) =>
  !i.firstRelease ? '–' : i.firstRelease === i.lastRelease ? i.firstRelease : `${i.firstRelease} → ${i.lastRelease}`;

/** Occurrences per UTC day over the last 14 days, counted from the issue's latest 100 events; read again
 *  only when the issue's count changes, not on every live push. */
function IssueSpark({ project, issue }: { project: string; issue: Issue }) {
  const days = useLoad(`${authKey.value}|${project}|${issue.id}|${issue.count}`, async (signal) => {
    const page = await get<Page<IssueEvent>>(
      `${issuesPath(project)}/${encodeURIComponent(issue.id)}/events`,
      {
        limit: 100,
      },
      signal,
    );
    const today = Math.floor(Date.now() / DAY);
    const counts = Array.from({ length: SPARK_DAYS }, () => 0);
    for (const e of page.data) {
      const ago = today - Math.floor(Date.parse(e.ts) / DAY);
      if (ago >= 0 && ago < SPARK_DAYS) counts[SPARK_DAYS - 1 - ago]!++;
    }
    return counts;
  });
  if (!days.data) return <Sparkline values={[]} label="Loading" />;
  const total = days.data.reduce((a, b) => a + b, 0);
  return <Sparkline values={days.data} label={`${total} events in the last ${SPARK_DAYS} days`} />;
}

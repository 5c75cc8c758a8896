// The projects view: every readable project with its visitors over 30 days, the change against the
// 30 days before, a sparkline, speed score and open issues (GET /v2/breakdown/project); creating a
// project shows its keys and snippet (create-project.tsx). A first start (one project, no events yet) goes straight to it.
import { useEffect } from 'preact/hooks';
import { get } from '../api.ts';
import { authKey, signedIn, signInHref } from '../auth.ts';
import { change, count } from '../format.ts';
import { Empty, ErrorNote, Loading } from '../components/notes.tsx';
import { useLoad } from '../components/load.ts';
import { Sparkline } from '../components/sparkline.tsx';
import { projects, type Project } from '../projects-store.ts';
import { navigate, onLinkClick, projectPath } from '../router.ts';
import { hasAnyEvent } from '../project-events.ts';
import { TokenForm } from '../shell.tsx';
import { CreateProject } from './create-project.tsx';

type Row = {
  value: string;
  visitors: number;
  pageviews: number;
  change: { visitors: number | null };
  speedScore: number | null;
  openIssues: number | null;
};

const LANDED = 'loupe.landed';
/** Each sparkline is a read of its own: the first rows get one, a long list does not fire hundreds. */
const SPARKLINES = 30;

export default function ProjectsView() {
  const { list, error } = projects.value;
  const ids = list?.map((p) => p.id).join(',') ?? null;
  const rows = useLoad(ids === null ? null : `${authKey.value}|${ids}`, (signal) =>
    get<{ data: Row[] }>('/v2/breakdown/project', { period: '30d', limit: 100 }, signal).then((r) => r.data),
  );
  useFirstStart(list, rows.data);
  if (error) return <ErrorNote error={error} />;
  if (!list) return <Loading label="Loading projects…" />;
  const byId = new Map((rows.data ?? []).map((r) => [r.value, r]));
  return (
    <section aria-labelledby="projects-title">
      <h1 id="projects-title">Projects</h1>
      {list.length === 0 ? <NoProjects /> : null}
      {rows.error ? <ErrorNote error={rows.error} /> : null}
      {list.length > 0 ? (
        <div class="table-wrap">
          <table class="projects" data-loaded={rows.data ? 'true' : 'false'}>
            <caption>Last 30 days, until the start of today (UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Project</th>
                <th scope="col" class="num">
                  Visitors
                </th>
                <th scope="col" class="num">
                  Change
                </th>
                <th scope="col">Trend</th>
                <th scope="col" class="num">
                  Speed
                </th>
                <th scope="col" class="num">
                  Open issues
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((p, i) => (
                <ProjectRow
                  key={p.id}
                  project={p}
                  row={byId.get(p.id)}
                  loading={rows.loading && !rows.data}
                  spark={i < SPARKLINES}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {signedIn.value ? <CreateProject /> : null}
    </section>
  );
}

function ProjectRow(props: { project: Project; row: Row | undefined; loading: boolean; spark: boolean }) {
  const { project, row, loading } = props;
  const spark = useLoad(props.spark ? `${authKey.value}|${project.id}` : null, (signal) =>
    get<{ data: { value: number }[] }>(
      `/v2/projects/${encodeURIComponent(project.id)}/timeseries`,
      { metric: 'visitors', period: '30d' },
      signal,
    ).then((r) => r.data.map((b) => b.value)),
  );
  const ch = change(row?.change.visitors, row?.visitors ?? 0);
  return (
    <tr>
      <th scope="row">
        <a href={projectPath(project.id)} onClick={onLinkClick}>
          {project.name}
        </a>
        {project.visibility === 'public' ? <span class="badge">public</span> : null}
      </th>
      <td class="num">{loading ? '…' : count(row?.visitors ?? 0)}</td>
      <td class={`num change ${ch.tone}`}>{loading ? '' : ch.text}</td>
      <td>
        <Sparkline values={spark.data ?? []} label={`Visitors per day of ${project.name}`} />
      </td>
      <td class="num">{row?.speedScore ?? '–'}</td>
      <td class="num">{row?.openIssues ?? '–'}</td>
    </tr>
  );
}

function NoProjects() {
  if (signedIn.value) return <Empty>No projects yet. Create one below and send it its first event.</Empty>;
  const href = signInHref();
  return (
    <div class="welcome">
      <p>
        There are no public projects here. {href ? <a href={href}>Sign in</a> : null}
        {href ? ' or paste' : 'Paste'} an API token to see yours: on its first start, Loupe printed an admin token in
        the server's log.
      </p>
      <TokenForm />
    </div>
  );
}

/** On a first start (one project and not one event in it yet), open that project and its first-event panel. */
function useFirstStart(list: Project[] | null, rows: Row[] | null) {
  useEffect(() => {
    if (!list || list.length !== 1 || !rows || rows.length > 0 || sessionStorage.getItem(LANDED)) return;
    const id = list[0]!.id;
    let live = true;
    hasAnyEvent(id)
      .then((any) => {
        if (!live || any) return;
        sessionStorage.setItem(LANDED, '1');
        navigate(projectPath(id), true);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [list, rows]);
}

// The dashboard's entry: learns who is signed in, loads the readable projects, and renders the view
// the address names. Views come from their own chunks (views/index.ts).
import { effect } from '@preact/signals';
import { render } from 'preact';
import { prefetch } from './api.ts';
import { authKey, loadSession } from './auth.ts';
import { Lazy } from './components/lazy.tsx';
import { ErrorNote } from './components/notes.tsx';
import { loadProjects, projects } from './projects-store.ts';
import { readQuery, readState } from './query-state.ts';
import { matchRoute, onLinkClick, place } from './router.ts';
import { Header } from './shell.tsx';
import { loadProjectsView, projectViews } from './views/index.ts';
import 'uplot/dist/uPlot.min.css';
import './styles/base.css';
import './styles/overview.css';
import './styles/detail.css';
import './styles/diagnostics.css';

function App() {
  const route = matchRoute(place.value.path);
  return (
    <>
      <Header route={route} />
      <main id="main">{body(route)}</main>
    </>
  );
}

function body(route: ReturnType<typeof matchRoute>) {
  if (!route)
    return (
      <p class="note empty">
        Nothing here.{' '}
        <a href="/" onClick={onLinkClick}>
          Go to your projects
        </a>
        .
      </p>
    );
  if (route.name === 'projects') return <Lazy load={loadProjectsView} props={{}} />;
  const view = projectViews[route.view];
  if (!view) return <ErrorNote error={new Error(`There is no ${route.view} view.`)} />;
  return (
    <Lazy
      key={`${route.project}/${route.view}`}
      load={view.load}
      props={{ project: route.project, item: route.item }}
    />
  );
}

// Whoever is signed in (a token, a session, nobody) decides what is readable: the list follows.
effect(() => {
  void authKey.value;
  // The old list goes at once: its rows would read projects the new credential may not see.
  projects.value = { list: null, error: null };
  void loadProjects();
});
void loadSession().catch(() => undefined);

// The overview's headline numbers are asked for now, while its chunk loads, so they come first.
const opened = matchRoute(place.value.path);
if (opened?.name === 'project' && opened.view === 'overview')
  prefetch(`/v2/projects/${encodeURIComponent(opened.project)}/stats`, readQuery(readState(place.value.search)));
const root = document.getElementById('app')!;
root.textContent = ''; // the page's boot note
render(<App />, root);

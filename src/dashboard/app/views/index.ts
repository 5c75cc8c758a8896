// The views and how each is loaded: every view is its own chunk, fetched when first shown, so the
// first page carries only the shell and the view it opens. A project's views are listed in its tabs.
import type { FunctionComponent } from 'preact';

export type ProjectViewProps = { project: string; item?: string };
export type ViewModule<P> = { default: FunctionComponent<P> };

/** `hidden`: reached by links only (one session's timeline), not listed in the tabs. */
export type ProjectView = { label: string; load: () => Promise<ViewModule<ProjectViewProps>>; hidden?: boolean };

export const projectViews: Record<string, ProjectView> = {
  overview: { label: 'Overview', load: () => import('./overview/index.tsx') },
  errors: { label: 'Errors', load: () => import('./errors/index.tsx') },
  speed: { label: 'Speed', load: () => import('./speed/index.tsx') },
  retention: { label: 'Retention', load: () => import('./retention/index.tsx') },
  logs: { label: 'Logs', load: () => import('./logs/index.tsx') },
  people: { label: 'People', load: () => import('./people/index.tsx') },
  session: { label: 'Session', load: () => import('./session/index.tsx'), hidden: true },
  sql: { label: 'SQL', load: () => import('./sql/index.tsx') },
  settings: { label: 'Settings', load: () => import('./settings/index.tsx') },
};

export const loadProjectsView = (): Promise<ViewModule<Record<string, never>>> => import('./projects.tsx');

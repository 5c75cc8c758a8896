// Where the dashboard is: the address bar is the state. A signal mirrors location (path and query);
// navigate() changes both, and the back button is followed. Views read the state from here only.
import { signal } from '@preact/signals';

export type Place = { path: string; search: string };
export type RouteMatch = { name: 'projects' } | { name: 'project'; project: string; view: string; item?: string };

export const place = signal<Place>(current());

function current(): Place {
  return { path: location.pathname, search: location.search };
}

addEventListener('popstate', () => (place.value = current()));

/** Goes to `url` (path and query) without reloading; `replace` keeps history from growing. */
export function navigate(url: string, replace = false): void {
  const next = new URL(url, location.href);
  if (next.pathname + next.search === location.pathname + location.search) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', next.pathname + next.search);
  place.value = current();
  if (!replace) scrollTo(0, 0);
}

export function matchRoute(path: string): RouteMatch | null {
  if (path === '/' || path === '') return { name: 'projects' };
  const m = /^\/p\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return null;
  try {
    return {
      name: 'project',
      project: decodeURIComponent(m[1]!),
      view: m[2] ? decodeURIComponent(m[2]) : 'overview',
      item: m[3] ? decodeURIComponent(m[3]) : undefined,
    };
  } catch {
    return null;
  }
}

export const projectPath = (id: string, view?: string) =>
  `/p/${encodeURIComponent(id)}${view && view !== 'overview' ? `/${encodeURIComponent(view)}` : ''}`;

/** A click on an in-app link navigates in place, unless the user asked for a new tab. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}

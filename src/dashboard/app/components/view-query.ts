// A view's own choices in the address (a status tab, a picker): read from the query string, and changed
// by navigating to the same view with the new value, so back, bookmarks and shared links keep them.
import { navigate, place, projectPath } from '../router.ts';

export function readParams(): URLSearchParams {
  return new URLSearchParams(place.value.search);
}

/** One of `allowed` from the address, or `fallback`. */
export function pickParam<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const v = readParams().get(name);
  return allowed.includes(v as T) ? (v as T) : fallback;
}

/** Goes to `view` with `patch` applied to the query; an empty value or the default (null) is left out. */
export function setParams(project: string, view: string, patch: Record<string, string | null>, item?: string): void {
  const q = readParams();
  for (const [k, v] of Object.entries(patch))
    if (v) q.set(k, v);
    else q.delete(k);
  const text = q.toString();
  const path = projectPath(project, view) + (item ? `/${encodeURIComponent(item)}` : '');
  navigate(path + (text ? `?${text}` : ''));
}

// Matches a method and path against the route declarations: `{name}` segments capture parameters.
// A path that matches with another method gives the allowed methods (for 405 and preflight).
export type Match<R> = { route: R; params: Record<string, string> } | { allowed: string[] } | null;

type Compiled<R> = { method: string; segments: string[]; route: R };

export function createRouter<R extends { method: string; path: string }>(routes: R[]) {
  const statics = new Map<string, Map<string, R>>();
  const dynamic: Compiled<R>[] = [];
  for (const route of routes) {
    if (!route.path.includes('{')) {
      const byMethod = statics.get(route.path) ?? new Map<string, R>();
      if (byMethod.has(route.method)) throw new Error(`Duplicate route ${route.method} ${route.path}`);
      statics.set(route.path, byMethod.set(route.method, route));
    } else {
      dynamic.push({ method: route.method, segments: route.path.split('/'), route });
    }
  }

  return function match(method: string, path: string): Match<R> {
    const lookup = method === 'HEAD' ? 'GET' : method;
    const exact = statics.get(path);
    if (exact) {
      const route = exact.get(lookup);
      return route ? { route, params: {} } : { allowed: [...exact.keys()] };
    }
    const parts = path.split('/');
    const allowed: string[] = [];
    for (const c of dynamic) {
      const params = matchSegments(c.segments, parts);
      if (!params) continue;
      if (c.method === lookup) return { route: c.route, params };
      allowed.push(c.method);
    }
    return allowed.length > 0 ? { allowed } : null;
  };
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (p.startsWith('{')) {
      if (part === '') return null;
      try {
        params[p.slice(1, -1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (p !== part) return null;
  }
  return params;
}

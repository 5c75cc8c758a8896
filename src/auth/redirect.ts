// Where a finished sign-in may send the browser: a path on the dashboard, or a URL on DASHBOARD_ORIGIN.
// Anything else (another host, a scheme-relative `//host`, `/\host`, javascript:) is refused: no open redirect.
import { validationFailed } from '../errors.ts';

/** The absolute URL to land on. A relative path resolves against DASHBOARD_ORIGIN, else the API's own origin. */
export function signInTarget(raw: string | undefined, apiOrigin: string, dashboardOrigin: string | undefined): string {
  const home = dashboardOrigin ?? apiOrigin;
  if (raw === undefined || raw === '') return `${home}/`;
  const refuse = () =>
    validationFailed([
      { field: 'query.redirect', message: 'must be a path such as /projects, or a URL on the dashboard origin' },
    ]);
  // Control characters and backslashes: browsers read `/\evil.com` as `//evil.com`.
  if (raw.length > 2000 || /[\u0000-\u001f\u007f\\]/.test(raw)) throw refuse();
  if (raw.startsWith('/')) {
    if (raw.startsWith('//')) throw refuse();
    const url = new URL(raw, home);
    if (url.origin !== new URL(home).origin) throw refuse();
    return url.href;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse();
  }
  const allowed = [dashboardOrigin, apiOrigin]
    .filter((o): o is string => o !== undefined)
    .map((o) => new URL(o).origin);
  if (!allowed.includes(url.origin)) throw refuse();
  return url.href;
}

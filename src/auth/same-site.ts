// Cookie-authenticated changes must come from the dashboard: a browser sends the session cookie with a
// cross-site form post too (SameSite=Lax lets top-level POSTs through on some browsers and subdomains are
// same-site), so the request's Origin (or, without one, Sec-Fetch-Site) must name the dashboard or the API.
import { forbidden } from '../errors.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export type SameSiteRule = {
  /** DASHBOARD_ORIGIN, when the dashboard is served elsewhere. */
  dashboardOrigin: string | undefined;
  /** The API's own origin (PUBLIC_URL's), when known; else the request's Host is compared. */
  apiOrigin: string | undefined;
};

/** Throws 403 when a cookie-authenticated request that changes something comes from another site. */
export function checkCookieMutation(method: string, headers: Record<string, string>, rule: SameSiteRule): void {
  if (SAFE.has(method)) return;
  const origin = headers.origin;
  if (origin !== undefined && origin !== 'null') {
    if (origin === rule.dashboardOrigin) return;
    if (rule.apiOrigin ? origin === rule.apiOrigin : hostOf(origin) === headers.host) return;
    throw forbidden(`A signed-in change must come from the dashboard; this one came from ${origin.slice(0, 200)}.`);
  }
  // No Origin: a browser sends Sec-Fetch-Site on every request; a server forwarding the cookie sends neither.
  const site = headers['sec-fetch-site'];
  if (origin === 'null' || (site !== undefined && site !== 'same-origin' && site !== 'none'))
    throw forbidden('A signed-in change must come from the dashboard.');
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

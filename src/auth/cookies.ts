// The Set-Cookie values Loupe writes: the session cookie (`<prefix>.session_token`, `__Secure-` over https)
// and the short-lived cookie that binds a sign-in in progress to the browser that started it.
import type { Config } from '../config.ts';

export type CookieSettings = { prefix: string; secure: boolean; domain: string | undefined };

/** Browsers cap a cookie's life at 400 days; the session's real end is kept (and slid) on the server. */
const SESSION_COOKIE_SECONDS = 400 * 86_400;
export const FLOW_SECONDS = 600;

/** Over https (PUBLIC_URL, or X-Forwarded-Proto behind a trusted proxy) cookies are Secure and `__Secure-`. */
export function cookieSettings(config: Config, headers: Record<string, string>): CookieSettings {
  const secure = config.publicUrl
    ? config.publicUrl.startsWith('https://')
    : config.trustProxy && headers['x-forwarded-proto']?.split(',')[0]?.trim() === 'https';
  return { prefix: config.cookiePrefix, secure, domain: config.authCookieDomain };
}

const named = (c: CookieSettings, suffix: string) => `${c.secure ? '__Secure-' : ''}${c.prefix}.${suffix}`;

export const sessionCookie = (c: CookieSettings, value: string) =>
  build(named(c, 'session_token'), value, {
    maxAge: SESSION_COOKIE_SECONDS,
    path: '/',
    domain: c.domain,
    secure: c.secure,
  });

export const clearSessionCookie = (c: CookieSettings) =>
  build(named(c, 'session_token'), '', { maxAge: 0, path: '/', domain: c.domain, secure: c.secure });

/** The flow cookie goes only to /v2/auth on the API's own host: nothing else needs it. */
export const flowCookie = (c: CookieSettings, value: string) =>
  build(named(c, 'signin_flow'), value, { maxAge: FLOW_SECONDS, path: '/v2/auth', secure: c.secure });

export const clearFlowCookie = (c: CookieSettings) =>
  build(named(c, 'signin_flow'), '', { maxAge: 0, path: '/v2/auth', secure: c.secure });

/** The flow cookie's value from a Cookie header (either name: the scheme may differ behind a proxy). */
export function flowCookieValue(header: string | undefined, prefix: string): string | undefined {
  return readCookie(header, [`__Secure-${prefix}.signin_flow`, `${prefix}.signin_flow`]);
}

/** A value that is not valid percent-encoding, or holds anything but printable ASCII (which no token Loupe
 *  hands out does), is no credential: it is passed over like a cookie of another name. */
export function readCookie(header: string | undefined, names: string[]): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || !names.includes(part.slice(0, eq).trim())) continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      continue;
    }
    if (/^[\x21-\x7e]{1,512}$/.test(value)) return value;
  }
  return undefined;
}

type Attributes = { maxAge: number; path: string; domain?: string; secure: boolean };

function build(name: string, value: string, a: Attributes): string {
  const parts = [`${name}=${value}`, `Path=${a.path}`, `Max-Age=${a.maxAge}`, 'HttpOnly', 'SameSite=Lax'];
  if (a.domain) parts.push(`Domain=${a.domain}`);
  if (a.secure) parts.push('Secure');
  return parts.join('; ');
}

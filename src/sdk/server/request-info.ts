// What the server SDK and the proxy take from a visitor's request: user agent, client IP and the
// Loupe session cookie. Accepts a Node IncomingMessage, a Fetch Request, Headers, or a plain
// headers object; reads nothing else.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export type HeaderBag = Headers | IncomingHttpHeaders | Record<string, string | string[] | undefined>;
export type RequestLike = IncomingMessage | Request | HeaderBag;

export type RequestInfo = { ip?: string; userAgent?: string; cookie?: string; referrer?: string };

export function requestInfo(request: RequestLike, cookiePrefix = 'loupe'): RequestInfo {
  const header = headerReader(request);
  const info: RequestInfo = {};
  const ip = clientIp(header, remoteAddress(request));
  if (ip) info.ip = ip;
  const userAgent = header('user-agent');
  if (userAgent) info.userAgent = userAgent;
  const cookie = sessionCookie(header('cookie'), cookiePrefix);
  if (cookie) info.cookie = cookie;
  const referrer = header('referer');
  if (referrer) info.referrer = referrer;
  return info;
}

/** X-Forwarded-For's first hop, then X-Real-IP, then the socket's address. */
export function clientIp(header: (name: string) => string | undefined, socketAddress?: string): string | undefined {
  const forwarded = header('x-forwarded-for')?.split(',')[0]?.trim();
  const ip = forwarded || header('x-real-ip')?.trim() || socketAddress;
  return ip ? ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '') : undefined;
}

/** Only `<prefix>.session_token` and `__Secure-<prefix>.session_token` pass; every other cookie stays. */
export function sessionCookie(cookieHeader: string | undefined, cookiePrefix = 'loupe'): string | undefined {
  if (!cookieHeader) return undefined;
  const names = new Set([`${cookiePrefix}.session_token`, `__Secure-${cookiePrefix}.session_token`]);
  const kept = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .filter((part) => {
      const eq = part.indexOf('=');
      return eq > 0 && names.has(part.slice(0, eq));
    });
  return kept.length > 0 ? kept.join('; ') : undefined;
}

export function headerReader(request: RequestLike): (name: string) => string | undefined {
  const headers = headersOf(request);
  if (isHeaders(headers)) return (name) => headers.get(name) ?? undefined;
  const lower = new Map<string, string | string[] | undefined>();
  for (const [key, value] of Object.entries(headers)) lower.set(key.toLowerCase(), value);
  return (name) => {
    const value = lower.get(name);
    if (Array.isArray(value)) return name === 'cookie' ? value.join('; ') : value.join(', ');
    return value ?? undefined;
  };
}

function headersOf(request: RequestLike): Headers | HeaderBag {
  if (isHeaders(request)) return request;
  if (isFetchRequest(request)) return request.headers;
  if (isIncomingMessage(request)) return request.headers;
  return request as HeaderBag;
}

function remoteAddress(request: RequestLike): string | undefined {
  return isIncomingMessage(request) ? request.socket?.remoteAddress : undefined;
}

function isHeaders(value: unknown): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

function isFetchRequest(value: unknown): value is Request {
  return typeof Request !== 'undefined' && value instanceof Request;
}

function isIncomingMessage(value: unknown): value is IncomingMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    'socket' in value &&
    'headers' in value &&
    typeof (value as IncomingMessage).headers === 'object'
  );
}

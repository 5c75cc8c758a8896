// A same-origin proxy for the browser SDK (Next.js route handlers or any Fetch server): forwards
// `<prefix>/v2/ingest` and `<prefix>/v2/sdk/*` to Loupe with X-Forwarded-For set to the client IP,
// the Loupe session cookie and the headers ingest needs, and nothing else.
import { clientIp, headerReader, sessionCookie } from './request-info.ts';

export type ProxyOptions = {
  host: string;
  /** The path the proxy is mounted at on the site, e.g. "/_loupe". */
  pathPrefix?: string;
  cookiePrefix?: string;
  /** The client IP when the platform knows it better than X-Forwarded-For (e.g. a socket address). */
  clientIp?: (request: Request) => string | undefined;
  fetch?: typeof fetch;
};

const FORWARDED_HEADERS = [
  'content-type',
  'x-project-key',
  'user-agent',
  'accept',
  'accept-language',
  'origin',
  'referer',
  'if-none-match',
  'if-modified-since',
  'sec-ch-ua',
  'sec-ch-ua-mobile',
  'sec-ch-ua-platform',
];
const RETURNED_HEADERS = ['content-type', 'cache-control', 'etag', 'last-modified', 'retry-after', 'vary', 'expires'];
const MAX_BODY = 1024 * 1024;

export function createProxyHandler(options: ProxyOptions): (request: Request) => Promise<Response> {
  const host = options.host.replace(/\/+$/, '');
  const prefix = (options.pathPrefix ?? '').replace(/\/+$/, '');
  const upstreamFetch = options.fetch ?? globalThis.fetch;

  return async function proxy(request) {
    const url = new URL(request.url);
    const path = prefix && url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const route = routeOf(path, request.method);
    if (route === 'not-found') return error(404, 'NOT_FOUND', 'not a Loupe path');
    if (route === 'method') return error(405, 'METHOD_NOT_ALLOWED', `${request.method} not allowed on ${path}`);

    const headers = forwardedHeaders(request, options);
    let body: ArrayBuffer | undefined;
    if (request.method === 'POST') {
      body = await request.arrayBuffer();
      if (body.byteLength > MAX_BODY) return error(413, 'PAYLOAD_TOO_LARGE', 'body over 1 MiB');
    }
    let upstream: Response;
    try {
      upstream = await upstreamFetch(`${host}${path}${url.search}`, {
        method: request.method,
        headers,
        body,
        redirect: 'manual',
      });
    } catch {
      return error(502, 'BAD_GATEWAY', 'Loupe did not answer');
    }
    const returned = new Headers();
    for (const name of RETURNED_HEADERS) {
      const value = upstream.headers.get(name);
      if (value !== null) returned.set(name, value);
    }
    // fetch already decoded the body, so content-encoding and content-length are not passed on.
    const payload = request.method === 'HEAD' || upstream.status === 304 ? null : await upstream.arrayBuffer();
    return new Response(payload, { status: upstream.status, headers: returned });
  };
}

function routeOf(path: string, method: string): 'ingest' | 'sdk' | 'not-found' | 'method' {
  if (path === '/v2/ingest') return method === 'POST' ? 'ingest' : 'method';
  if (path.startsWith('/v2/sdk/') && !path.includes('..'))
    return method === 'GET' || method === 'HEAD' ? 'sdk' : 'method';
  return 'not-found';
}

function forwardedHeaders(request: Request, options: ProxyOptions): Headers {
  const header = headerReader(request);
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = header(name);
    if (value !== undefined) headers.set(name, value);
  }
  const ip = options.clientIp?.(request) ?? clientIp(header);
  if (ip) headers.set('x-forwarded-for', ip);
  const cookie = sessionCookie(header('cookie'), options.cookiePrefix ?? 'loupe');
  if (cookie) headers.set('cookie', cookie);
  return headers;
}

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message, details: [] } }, { status });
}

// The uWebSockets.js adapter, and the only module that sees its request and response objects: matches a
// route, reads the body, answers CORS and errors, writes replies (corked, streams with backpressure), logs.
import uWS from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';
import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { readsClientIp, type IncomingRequest, type Reply, type Route } from '../routes/route.ts';
import { parseBody, readBody, type BodyResult } from './body.ts';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { parseQueryString } from './query-string.ts';
import { createRouter } from './router.ts';
import { answer, answerEmpty, openExchange, refuse, signalOf, type ExchangeHost } from './exchange.ts';
import type { Header } from './write.ts';
import { attachWebSockets, type SocketRoute } from './websocket.ts';

export const BODY_LIMIT = 1024 * 1024;

export type HttpServerOptions = {
  host: string;
  port: number;
  routes: Route[];
  sockets?: SocketRoute[];
  execute: (route: Route, req: IncomingRequest) => Promise<Reply>;
  dashboardOrigin?: string;
  trustProxy: boolean;
  log: Logger;
};

export type HttpServer = {
  port: number;
  /** Topic fan-out to WebSocket subscribers (uWS pub/sub). */
  publisher: { publish: (topic: string, text: string) => void; subscribers: (topic: string) => number };
  close: (graceMs?: number) => Promise<void>;
};

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const app = uWS.App();
  const match = createRouter(opts.routes);
  const host: ExchangeHost = { log: opts.log, open: 0, closing: false, streams: new Set() };
  let requestCounter = 0;
  const idPrefix = Math.random().toString(36).slice(2, 8);

  const closeSockets = opts.sockets
    ? attachWebSockets(
        app,
        opts.sockets,
        (headers, remote) => (opts.trustProxy && headers['x-forwarded-for']?.split(',')[0]?.trim()) || remote,
      )
    : () => {};

  app.any('/*', (res, req) => {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const qs = req.getQuery() ?? '';
    const headers = copyHeaders(req);
    const incomingId = headers['x-request-id'];
    const requestId =
      incomingId && /^[\w.-]{1,64}$/.test(incomingId) ? incomingId : `${idPrefix}-${(++requestCounter).toString(36)}`;
    const base: Header[] = [['X-Request-Id', requestId], ...corsHeaders(headers.origin, opts.dashboardOrigin)];
    const x = openExchange(host, res, method, path, requestId, base);
    // Shutting down: a request that arrives on a kept-alive connection is refused, and the connection closed,
    // so the requests in flight finish and nothing new keeps the drain from ending.
    if (host.closing)
      return void refuse(
        x,
        new HttpError('UNAVAILABLE', 'The server is shutting down; retry in a moment.', [], { 'Retry-After': '1' }),
      );

    if (method === 'OPTIONS') {
      // No route has this method, so the match lists every method the path allows.
      const m = match('OPTIONS', path);
      if (m === null || !('allowed' in m)) return void refuse(x, new HttpError('NOT_FOUND', `No route ${path}.`));
      return void answerEmpty(x, 204, preflightHeaders(m.allowed));
    }

    const found = match(method, path);
    if (found === null) return void refuse(x, new HttpError('NOT_FOUND', `No route ${method} ${path}.`));
    if ('allowed' in found) {
      const allow = [...found.allowed, 'OPTIONS'].join(', ');
      return void refuse(
        x,
        new HttpError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}. Allowed: ${allow}.`, [], {
          Allow: allow,
        }),
      );
    }

    const wantsBody = method === 'POST' || method === 'PATCH' || method === 'PUT' || method === 'DELETE';
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > BODY_LIMIT)
      return void refuse(x, new HttpError('PAYLOAD_TOO_LARGE', `The body is larger than ${BODY_LIMIT} bytes.`));
    const bodyPromise = wantsBody ? readBody(res, BODY_LIMIT, (f) => x.state.onAbort.push(f)) : null;
    // Before the first await: once the handler yields, `res` may be aborted and unusable.
    const ip = readsClientIp(found.route) ? clientIp(res, headers, opts.trustProxy) : undefined;

    const request: IncomingRequest = {
      method,
      path,
      params: found.params,
      query: parseQueryString(qs),
      headers,
      body: undefined,
      bodyEscapes: false,
      requestId,
      get ip() {
        return ip ?? ipNotCaptured(found.route);
      },
      get signal() {
        return signalOf(x);
      },
    };
    void answer(x, run(found.route, request, bodyPromise, headers['content-type']), method === 'HEAD');
  });

  /** Reads and parses the body, if any, then runs the route; null when the client left mid-body. */
  async function run(
    route: Route,
    request: IncomingRequest,
    bodyPromise: Promise<BodyResult> | null,
    contentType?: string,
  ): Promise<Reply | null> {
    if (!bodyPromise) return opts.execute(route, request);
    const read = await bodyPromise;
    if (!read.ok) {
      if (read.reason === 'aborted') return null;
      throw new HttpError('PAYLOAD_TOO_LARGE', `The body is larger than ${BODY_LIMIT} bytes.`);
    }
    const parsed = parseBody(read.bytes, contentType);
    if (!parsed.ok)
      throw new HttpError(parsed.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'MALFORMED_JSON', parsed.message);
    request.body = parsed.value;
    request.bodyEscapes = parsed.unicodeEscapes;
    return opts.execute(route, request);
  }

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(opts.host, opts.port, (s) =>
      s ? resolve(s) : reject(new Error(`Cannot listen on ${opts.host}:${opts.port}`)),
    );
  });
  const port = uWS.us_socket_local_port(listenSocket);

  return {
    port,
    publisher: {
      publish: (topic, text) => void app.publish(topic, text),
      subscribers: (topic) => app.numSubscribers(topic),
    },
    async close(graceMs = 10_000) {
      host.closing = true;
      uWS.us_listen_socket_close(listenSocket);
      // Streams never finish by themselves: they end now (an SSE client reconnects elsewhere with Last-Event-ID).
      for (const end of [...host.streams]) end();
      closeSockets(1001, 'server shutting down');
      const deadline = Date.now() + graceMs;
      while (host.open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // close() exists at run time in this build but is missing from its typings: it ends keep-alive sockets.
      (app as unknown as { close: () => void }).close();
    },
  };
}

function copyHeaders(req: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  });
  return headers;
}

function ipNotCaptured(route: Route): never {
  throw new Error(`${route.method} ${route.path} reads the client IP: declare usesIp: true on the route.`);
}

// Decodes the address straight from uWS's ArrayBuffer: about half the cost of wrapping it in a Buffer first.
const addressDecoder = new TextDecoder();

function clientIp(res: HttpResponse, headers: Record<string, string>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = headers['x-forwarded-for']?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return addressDecoder.decode(res.getRemoteAddressAsText());
}

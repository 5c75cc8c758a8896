// The uWebSockets.js adapter, and the only module that sees its request and response objects: matches a
// route, reads the body, answers CORS and errors, writes replies (corked, streams with backpressure), logs.
import uWS from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { Refusal } from '../refusal.ts';
import { readsClientIp, type IncomingRequest, type Reply, type Route } from '../routes/route.ts';
import { Backlog } from './backlog.ts';
import { parseBody, readBody, type BodyResult } from './body.ts';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { parseQueryString } from './query-string.ts';
import { createRouter } from './router.ts';
import {
  answer,
  answerBare,
  answerEmpty,
  openExchange,
  refuse,
  signalOf,
  type Exchange,
  type ExchangeHost,
} from './exchange.ts';
import type { Header } from './write.ts';
import { attachWebSockets, type SocketRoute } from './websocket.ts';

export const BODY_LIMIT = 1024 * 1024;

export type HttpServerOptions = {
  host: string;
  port: number;
  routes: Route[];
  sockets?: SocketRoute[];
  /** Decides who is calling and whether they may (credentials, project, access), while a body arrives:
   *  a refused caller's body is neither kept nor parsed. What it answers goes to execute. */
  admit?: (route: Route, req: IncomingRequest) => Promise<unknown>;
  /** Runs the route; `admitted` is admit's answer when the request had a body, else undefined. */
  execute: (route: Route, req: IncomingRequest, admitted?: unknown) => Promise<Reply>;
  dashboardOrigin?: string;
  trustProxy: boolean;
  /** Bytes the server may hold for live readers (SSE streams, WebSockets) that are behind, all together. */
  liveBacklogBytes: number;
  log: Logger;
};

export type HttpServer = {
  port: number;
  /** What the live readers that are behind hold now, and the budget for it. */
  backlog: { readonly held: number; readonly limit: number };
  close: (graceMs?: number) => Promise<void>;
};

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const app = uWS.App();
  const match = createRouter(opts.routes);
  const backlog = new Backlog(opts.liveBacklogBytes);
  const host: ExchangeHost = { log: opts.log, open: 0, closing: false, streams: new Set(), backlog };
  let requestCounter = 0;
  const idPrefix = Math.random().toString(36).slice(2, 8);

  const closeSockets = opts.sockets
    ? attachWebSockets(
        app,
        opts.sockets,
        (headers, remote) => (opts.trustProxy && headers['x-forwarded-for']?.split(',')[0]?.trim()) || remote,
        opts.log,
        () => `${idPrefix}-${(++requestCounter).toString(36)}`,
        backlog,
      )
    : () => {};

  // A throw out of a uWS callback ends the process: anything unexpected becomes a logged 500 instead.
  app.any('/*', (res, req) => {
    let x: Exchange | undefined;
    try {
      handle(res, req, (opened) => (x = opened));
    } catch (err) {
      if (x) return void refuse(x, err);
      opts.log.error('unhandled error before a request was read', { err });
      answerBare(res, 500);
    }
  });

  function handle(res: HttpResponse, req: HttpRequest, opened: (x: Exchange) => void): void {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const qs = req.getQuery() ?? '';
    const headers = copyHeaders(req);
    const incomingId = headers['x-request-id'];
    const requestId =
      incomingId && /^[\w.-]{1,64}$/.test(incomingId) ? incomingId : `${idPrefix}-${(++requestCounter).toString(36)}`;
    const base: Header[] = [['X-Request-Id', requestId], ...corsHeaders(headers.origin, opts.dashboardOrigin)];
    const x = openExchange(host, res, method, path, requestId, base);
    opened(x);
    // Shutting down: a request that arrives on a kept-alive connection is refused, and the connection closed,
    // so the requests in flight finish and nothing new keeps the drain from ending.
    if (host.closing)
      return void refuse(
        x,
        new HttpError('UNAVAILABLE', 'The server is shutting down; retry in a moment.', [], { 'Retry-After': '1' }),
      );

    // Framing a proxy in front may read otherwise (request smuggling): refused, and the connection closed.
    const framing = framingProblem(headers);
    if (framing) return void refuse(x, new HttpError('BAD_REQUEST', framing), true);

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
    const discard = { discard: false };
    const bodyPromise = wantsBody ? readBody(res, BODY_LIMIT, (f) => x.state.onAbort.push(f), discard) : null;
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
    void answer(x, run(x, found.route, request, bodyPromise, discard, headers['content-type']), method === 'HEAD');
  }

  /** Admits the caller while the body arrives, reads and parses it, then runs the route; null when the
   *  client left mid-body. A refused caller's body is dropped as it comes, and the connection closed. */
  async function run(
    x: Exchange,
    route: Route,
    request: IncomingRequest,
    bodyPromise: Promise<BodyResult> | null,
    discard: { discard: boolean },
    contentType?: string,
  ): Promise<Reply | null> {
    if (!bodyPromise) return opts.execute(route, request);
    let admitted: unknown;
    try {
      admitted = opts.admit ? await opts.admit(route, request) : undefined;
    } catch (err) {
      discard.discard = true;
      x.close = true;
      throw err;
    }
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
    return opts.execute(route, request, admitted);
  }

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    // Exclusive: uWebSockets.js otherwise shares a port in use (SO_REUSEPORT), and a second server would
    // silently take half of the first one's connections.
    listenExclusive(app, opts.host, opts.port, (s) =>
      s
        ? resolve(s)
        : reject(
            new Refusal(
              `Port ${opts.port} on ${opts.host} is in use (another Loupe or another program): stop it, or set PORT to a free port.`,
            ),
          ),
    );
  });
  const port = uWS.us_socket_local_port(listenSocket);

  return {
    port,
    backlog,
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

/** listen(host, port, options, callback): the build takes options after a host too; its typings omit it. */
function listenExclusive(app: TemplatedApp, host: string, port: number, cb: (s: us_listen_socket | false) => void) {
  const listen = app.listen as unknown as (h: string, p: number, o: number, c: typeof cb) => TemplatedApp;
  listen.call(app, host, port, 1 /* ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT */, cb);
}

function copyHeaders(req: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  });
  return headers;
}

/** Content-Length sent twice with different values (copyHeaders joins repeats with ", "), or beside
 *  Transfer-Encoding: which one frames the body depends on who reads it. */
function framingProblem(headers: Record<string, string>): string | null {
  const length = headers['content-length'];
  if (length !== undefined && length.includes(',')) {
    const values = new Set(length.split(',').map((v) => v.trim()));
    if (values.size > 1) return 'Content-Length is sent more than once with different values.';
  }
  if (length !== undefined && headers['transfer-encoding'] !== undefined)
    return 'Send either Content-Length or Transfer-Encoding, not both.';
  return null;
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

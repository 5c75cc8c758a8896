// WebSocket routes on uWS: the upgrade copies what the route needs (params, headers, IP) and the route
// decides everything else after open. Slow clients are closed at the backpressure limit, never buffered, or
// sooner when the server's live readers together hold more than its budget (src/http/backlog.ts).
// Every callback is guarded: a throw from uWS's callbacks ends the process, so none may escape.
import type { HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { Logger } from '../log.ts';
import type { Backlog } from './backlog.ts';
import type { SocketPeer, SocketRequest, SocketRoute, SocketSession } from '../routes/socket-route.ts';
import { statusLine } from './status.ts';

export type { SocketPeer, SocketRequest, SocketRoute, SocketSession } from '../routes/socket-route.ts';

/** `held`: the bytes uWS held for this socket after its last send or drain, its share of the backlog. */
type UserData = { req: SocketRequest; session?: SocketSession; closed: boolean; held: number };

const MAX_BACKPRESSURE = 256 * 1024;

/** Answers a function that closes every open socket (the server's shutdown: 1001, going away). */
export function attachWebSockets(
  app: TemplatedApp,
  routes: SocketRoute[],
  clientIp: (headers: Record<string, string>, remote: string) => string,
  log: Logger,
  requestId: () => string,
  backlog: Backlog,
): (code: number, reason: string) => void {
  const open = new Set<WebSocket<UserData>>();
  for (const route of routes) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    app.ws<UserData>(route.path.replace(/\{(\w+)\}/g, ':$1'), {
      maxPayloadLength: 16 * 1024,
      idleTimeout: 60,
      maxBackpressure: MAX_BACKPRESSURE,
      closeOnBackpressureLimit: 1,
      upgrade: (res, req, context) => {
        let id: string | undefined;
        try {
          const headers: Record<string, string> = {};
          req.forEach((k, v) => (headers[k] = v));
          id =
            headers['x-request-id'] && /^[\w.-]{1,64}$/.test(headers['x-request-id'])
              ? headers['x-request-id']
              : requestId();
          const params = decodeParams(names, (i) => req.getParameter(i) ?? '');
          if (!params) return void refuseUpgrade(res, 400, 'A path segment has malformed percent-encoding.');
          const key = headers['sec-websocket-key'];
          if (!key) return void refuseUpgrade(res, 400, 'Not a WebSocket upgrade request.');
          const ip = clientIp(headers, Buffer.from(res.getRemoteAddressAsText()).toString());
          res.upgrade<UserData>(
            { req: { params, headers, ip }, closed: false, held: 0 },
            key,
            headers['sec-websocket-protocol'] ?? '',
            headers['sec-websocket-extensions'] ?? '',
            context,
          );
        } catch (err) {
          log.error('unhandled error in a WebSocket upgrade', { requestId: id, path: route.path, err });
          refuseUpgrade(res, 500, `Something went wrong. Quote request id ${id ?? 'none'} when reporting it.`);
        }
      },
      open: (ws) => {
        open.add(ws);
        const data = ws.getUserData();
        try {
          data.session = route.open(data.req, peerOf(ws, backlog));
        } catch (err) {
          log.error('unhandled error opening a WebSocket', { path: route.path, err });
          data.closed = true;
          ws.end(1011, 'internal error');
        }
      },
      message: (ws, message) => {
        try {
          ws.getUserData().session?.message(Buffer.from(message).toString('utf8'));
        } catch (err) {
          log.error('unhandled error in a WebSocket message', { path: route.path, err });
          const data = ws.getUserData();
          if (!data.closed) ((data.closed = true), ws.end(1011, 'internal error'));
        }
      },
      // The socket took some of what uWS held for it: its share shrinks without waiting for the next send.
      drain: (ws) => {
        const data = ws.getUserData();
        if (data.closed) return;
        const held = ws.getBufferedAmount();
        backlog.update(data.held, held);
        data.held = held;
      },
      close: (ws) => {
        open.delete(ws);
        const data = ws.getUserData();
        data.closed = true;
        backlog.update(data.held, 0);
        data.held = 0;
        try {
          data.session?.close();
        } catch (err) {
          log.error('unhandled error closing a WebSocket', { path: route.path, err });
        }
      },
    });
  }
  return (code, reason) => {
    for (const ws of [...open]) peerOf(ws, backlog).close(code, reason);
  };
}

/** The path parameters, percent-decoded; null when one is not valid percent-encoding. */
function decodeParams(names: string[], raw: (i: number) => string): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    try {
      params[names[i]!] = decodeURIComponent(raw(i));
    } catch {
      return null;
    }
  }
  return params;
}

/** Answers an upgrade with an HTTP error and closes the connection; the response may already be gone. */
function refuseUpgrade(res: HttpResponse, status: number, message: string): void {
  try {
    res.cork(() => {
      res.writeStatus(statusLine(status));
      res.writeHeader('Content-Type', 'application/json; charset=utf-8');
      const code = status === 400 ? 'BAD_REQUEST' : 'INTERNAL';
      res.end(JSON.stringify({ error: { code, message, details: [] } }), true);
    });
  } catch {
    // Nothing left to answer on: the client went away.
  }
}

/** False, and the socket closed, once it holds the backpressure limit (the hub sends it nothing more, and
 *  uWS closes only on a send past the limit, which would then never come), or holds anything while the
 *  server's readers together are over their budget. */
function behind(ws: WebSocket<UserData>, backlog: Backlog): boolean {
  const data = ws.getUserData();
  if (data.closed) return false;
  const held = ws.getBufferedAmount();
  const overBudget = backlog.update(data.held, held);
  data.held = held;
  if (held < MAX_BACKPRESSURE && !overBudget) return true;
  ws.close(); // its close handler marks it closed and gives back its share
  return false;
}

function peerOf(ws: WebSocket<UserData>, backlog: Backlog): SocketPeer {
  const open = () => !ws.getUserData().closed;
  return {
    // A send from a promise or timer must be corked.
    send: (text) => open() && (ws.cork(() => ws.send(text)), behind(ws, backlog)),
    sendAll: (messages) => {
      if (!open()) return false;
      // 2: dropped past the backpressure limit (uWS then closes the socket: closeOnBackpressureLimit).
      ws.cork(() => {
        for (const m of messages) if (ws.send(m, false) === 2) return;
      });
      return behind(ws, backlog);
    },
    close: (code, reason) => void (open() && ws.cork(() => ws.end(code, reason))),
  };
}

// WebSocket routes on uWS: the upgrade copies what the route needs (params, headers, IP) and the route
// decides everything else after open. Slow clients are closed at the backpressure limit, never buffered.
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';

export type SocketPeer = {
  send: (text: string) => boolean;
  subscribe: (topic: string) => void;
  close: (code: number, reason: string) => void;
};
export type SocketSession = { message: (text: string) => void; close: () => void };
export type SocketRequest = { params: Record<string, string>; headers: Record<string, string>; ip: string };
export type SocketRoute = { path: string; open: (req: SocketRequest, peer: SocketPeer) => SocketSession };

type UserData = { req: SocketRequest; session?: SocketSession; closed: boolean };

const MAX_BACKPRESSURE = 256 * 1024;

/** Answers a function that closes every open socket (the server's shutdown: 1001, going away). */
export function attachWebSockets(
  app: TemplatedApp,
  routes: SocketRoute[],
  clientIp: (headers: Record<string, string>, remote: string) => string,
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
        const headers: Record<string, string> = {};
        req.forEach((k, v) => (headers[k] = v));
        const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(req.getParameter(i) ?? '')]));
        const ip = clientIp(headers, Buffer.from(res.getRemoteAddressAsText()).toString());
        res.upgrade<UserData>(
          { req: { params, headers, ip }, closed: false },
          headers['sec-websocket-key']!,
          headers['sec-websocket-protocol'] ?? '',
          headers['sec-websocket-extensions'] ?? '',
          context,
        );
      },
      open: (ws) => {
        open.add(ws);
        const data = ws.getUserData();
        data.session = route.open(data.req, peerOf(ws));
      },
      message: (ws, message) => {
        ws.getUserData().session?.message(Buffer.from(message).toString('utf8'));
      },
      close: (ws) => {
        open.delete(ws);
        const data = ws.getUserData();
        data.closed = true;
        data.session?.close();
      },
    });
  }
  return (code, reason) => {
    for (const ws of [...open]) peerOf(ws).close(code, reason);
  };
}

function peerOf(ws: WebSocket<UserData>): SocketPeer {
  const open = () => !ws.getUserData().closed;
  return {
    // A send from a promise or timer must be corked; 2 means dropped past the backpressure limit.
    send: (text) => open() && ws.cork(() => ws.send(text)) !== undefined && ws.getBufferedAmount() < MAX_BACKPRESSURE,
    subscribe: (topic) => void (open() && ws.subscribe(topic)),
    close: (code, reason) => void (open() && ws.cork(() => ws.end(code, reason))),
  };
}

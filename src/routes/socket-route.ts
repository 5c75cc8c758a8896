// What a WebSocket route is, beside the HTTP routes' declarations: a path and what to do when a socket
// opens. src/http/websocket.ts runs these on uWS; the route never sees the server's objects.

export type SocketPeer = {
  send: (text: string) => boolean;
  /** Several text messages (UTF-8 bytes, encoded once for every peer) in one corked write; false when the
   *  socket is closed or past its backpressure limit. */
  sendAll: (messages: readonly Uint8Array[]) => boolean;
  close: (code: number, reason: string) => void;
};
export type SocketSession = { message: (text: string) => void; close: () => void };
export type SocketRequest = { params: Record<string, string>; headers: Record<string, string>; ip: string };
export type SocketRoute = { path: string; open: (req: SocketRequest, peer: SocketPeer) => SocketSession };

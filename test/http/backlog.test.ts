// The server's one budget for live readers that are behind (src/http/backlog.ts), on real sockets: a
// stalled SSE stream and a stalled WebSocket share it, the one written to once together they are over it
// is closed although within its own allowance, a reader that keeps up is not, and every share comes back.
import net from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { startHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/log.ts';
import type { PushSink } from '../../src/reply.ts';
import type { SocketPeer } from '../../src/routes/socket-route.ts';

const KiB = 1024;
const BUDGET = 256 * KiB; // the WebSocket's own allowance, and a quarter of an SSE stream's
const sinks: PushSink[] = [];
const peers: { peer: SocketPeer; closed: boolean }[] = [];
const server = await startHttpServer({
  host: '127.0.0.1',
  port: 0,
  routes: [{ method: 'GET', path: '/v2/push', access: 'public', summary: '', tag: '', handler: () => ({}) }],
  execute: () => Promise.resolve({ push: (sink) => (sinks.push(sink), () => {}) }),
  sockets: [
    {
      path: '/v2/live',
      open: (_req, peer) => {
        const entry = { peer, closed: false };
        peers.push(entry);
        return { message: () => {}, close: () => void (entry.closed = true) };
      },
    },
  ],
  trustProxy: false,
  liveBacklogBytes: BUDGET,
  log: createLogger('silent'),
});
t.teardown(() => server.close(100));

const until = async (ok: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

/** A client that sends its request and never reads a byte of the answer. */
async function stalled(request: string): Promise<net.Socket> {
  const socket = net.connect(server.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.on('error', () => {});
  socket.write(request);
  socket.pause();
  return socket;
}

t.test('a stalled SSE stream and a stalled WebSocket share one budget', async (t) => {
  const sseClient = await stalled('GET /v2/push HTTP/1.1\r\nHost: x\r\n\r\n');
  t.ok(await until(() => sinks.length === 1), 'the SSE stream is open');
  const wsClient = await stalled(
    'GET /v2/live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  t.ok(await until(() => peers.length === 1), 'the stalled WebSocket is open');
  const reading = new WebSocket(`ws://127.0.0.1:${server.port}/v2/live`);
  let received = 0;
  reading.on('message', () => received++);
  await new Promise((r) => reading.once('open', r));
  t.ok(await until(() => peers.length === 2), 'the reading WebSocket is open');
  const [sse, ws, keepsUp] = [sinks[0]!, peers[0]!, peers[1]!];

  // 16 KiB at a time, past what the kernel's buffers take, until the SSE stream holds 160 KiB.
  const chunk = 'x'.repeat(16 * KiB);
  let writes = 0;
  while (writes < 5_000 && server.backlog.held < 160 * KiB && sse.write(chunk)) writes++;
  const sseShare = server.backlog.held;
  t.ok(sseShare >= 160 * KiB && sseShare < 200 * KiB, `the SSE stream holds ${sseShare} bytes after ${writes} writes`);

  // The WebSocket goes once the two together pass the budget: at under half its own allowance.
  let sent = 0;
  let wsShare = 0;
  let keptUp = true;
  while (sent < 5_000) {
    wsShare = server.backlog.held - sseShare;
    sent++;
    if (!ws.peer.send(chunk)) break;
    keptUp &&= keepsUp.peer.send('a short line');
  }
  t.ok(ws.closed, `the stalled WebSocket is closed after ${sent} sends`);
  // Before the send that closed it, it held `wsShare`: the two together were within the budget then.
  t.ok(wsShare > 0 && wsShare + 2 * chunk.length < BUDGET, `holding ${wsShare} bytes, far within its own allowance`);
  t.equal(server.backlog.held, sseShare, 'its share came back; the SSE stream keeps its own');
  t.ok(sse.write(chunk), 'the SSE stream, alone within the budget, is still written to');
  t.ok(keptUp, 'the reading WebSocket was written every line');
  t.ok(await until(() => received > 0 && !keepsUp.closed), 'and is open and reading');

  sseClient.destroy();
  t.ok(await until(() => server.backlog.held === 0), 'the SSE client gone: its share came back');
  t.notOk(sse.write(chunk), 'that stream is over');
  reading.close();
  wsClient.destroy();
  t.ok(await until(() => keepsUp.closed));
  t.equal(server.backlog.held, 0);
});

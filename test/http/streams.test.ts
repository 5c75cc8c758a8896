// Live subscribers and the server around them: an idle project's actor stays while anyone subscribes (SSE,
// long-poll or WebSocket) and goes after; an SSE reader that stops reading is cut off, not buffered for;
// shutdown with 1,000 subscribers open ends SSE streams and closes WebSockets with 1001 in under 2 s.
import { request, type IncomingMessage } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../support/server.ts';

const until = async (ok: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

/** An SSE stream read by node:http (one socket each, no pool): resolves once the head arrived. */
function sse(s: TestServer, project: string, cookie: string) {
  const state = { text: '', ended: false, res: null as IncomingMessage | null };
  const req = request(`${s.url}/v2/projects/${project}/logs`, {
    agent: false,
    headers: { cookie, accept: 'text/event-stream' },
  });
  const opened = new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      state.res = res;
      res.setEncoding('utf8');
      res.on('data', (c: string) => (state.text += c));
      res.on('end', () => (state.ended = true));
      res.on('error', () => (state.ended = true));
      res.on('close', () => (state.ended = true));
      resolve();
    });
    req.on('error', reject);
  });
  req.end();
  return { state, opened, close: () => req.destroy() };
}

function socket(s: TestServer, project: string, cookie: string) {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v2/projects/${project}/live`, { headers: { cookie } });
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  const hello = new Promise<void>((r) => ws.once('message', () => r()));
  ws.on('error', () => {});
  return { ws, closed, hello };
}

t.test('an idle actor with a subscriber of any kind stays; without one it goes', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const admin = await s.member('owner');
  for (const id of ['p-sse', 'p-poll', 'p-ws']) await s.project(id);
  const { actors } = s.loupe.services;

  const stream = sse(s, 'p-sse', admin.cookie);
  await stream.opened;
  const cursor = '9223372036854775807';
  const polling = new AbortController();
  const poll = fetch(`${s.url}/v2/projects/p-poll/logs?after=${cursor}`, {
    headers: { cookie: admin.cookie },
    signal: polling.signal,
  }).catch(() => null);
  const ws = socket(s, 'p-ws', admin.cookie);
  await ws.hello;
  t.ok(await until(() => ['p-sse', 'p-poll', 'p-ws'].every((id) => actors.peek(id) !== undefined)));
  const before = ['p-sse', 'p-poll', 'p-ws'].map((id) => actors.peek(id)!);
  const age = () => before.forEach((a) => (a.lastActivity = 0)); // idle for as long as anyone can tell
  age();
  actors.sweep();
  t.same(
    ['p-sse', 'p-poll', 'p-ws'].map((id, i) => actors.peek(id) === before[i]),
    [true, true, true],
    'SSE, long-poll and WebSocket each keep their idle actor',
  );

  stream.close();
  ws.ws.close();
  await ws.closed;
  polling.abort();
  await poll;
  // The feeds linger 2 s after their last subscriber; the WebSocket hub stops on its next tick.
  t.ok(
    await until(() => {
      age();
      actors.sweep();
      return ['p-sse', 'p-poll', 'p-ws'].every((id) => actors.peek(id) === undefined);
    }, 8_000),
    'once they left, the sweep drops them',
  );
});

t.test('an SSE reader that stops reading is cut off; one that reads gets every line', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const admin = await s.member('owner');
  await s.project('site');
  const { sql, actors, feeds } = s.loupe.services;
  // A client that sends its request and never reads a byte of the answer.
  const stalled = tcpConnect(Number(new URL(s.url).port), '127.0.0.1');
  await new Promise((r) => stalled.once('connect', r));
  stalled.on('error', () => {});
  stalled.write(
    `GET /v2/projects/site/logs HTTP/1.1\r\nHost: x\r\nCookie: ${admin.cookie}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  stalled.pause();
  const reader = sse(s, 'site', admin.cookie);
  await reader.opened;
  t.ok(await until(() => feeds.subscribers('site') === 2), 'two streams open');

  // 12,000 lines of 2 KB: more than the kernel's socket buffers and the cut-off allowance together.
  const message = 'x'.repeat(2_000);
  for (let i = 0; i < 6; i++)
    await sql`insert into logs (project_id, level, kind, source, message)
      select 'site', 'info', 'pipeline', 'engine', ${message} || n from generate_series(1, 2000) n`;
  const [wake] = await sql<{ id: string; ts: Date }[]>`
    insert into logs (project_id, level, kind, source, message) values ('site', 'info', 'jobs', 'cron', 'wake') returning id::text, ts`;
  actors.deliver('site', [
    {
      id: wake!.id,
      ts: wake!.ts.toISOString(),
      level: 'info',
      kind: 'jobs',
      source: 'cron',
      message: 'wake',
      data: {},
      visitor: null,
      session: null,
    },
  ]);
  t.ok(await until(() => reader.state.text.includes('"message":"wake"'), 20_000), 'the reading client got to the end');
  t.ok(await until(() => feeds.subscribers('site') === 1), 'the stalled one is gone');
  const ids = [...reader.state.text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
  t.equal(ids.length, new Set(ids).size, 'no line twice');
  t.ok(ids.length >= 12_001, `${ids.length} lines to the reading client`);
  reader.close();
  stalled.destroy();
  t.equal(s.loupe.backlog.limit, 256 * 1024 * 1024, 'the budget shared by live readers: 256 MiB unless set');
  t.ok(await until(() => s.loupe.backlog.held === 0), 'both streams over: nothing held for them');
});

t.test('shutdown with 1,000 subscribers open: under 2 s, streams end, sockets close with 1001', async (t) => {
  const s = await startTestServer();
  let dropped = false;
  t.teardown(() => (dropped ? undefined : s.close()));
  const admin = await s.member('owner');
  await s.project('site');
  const streams = Array.from({ length: 600 }, () => sse(s, 'site', admin.cookie));
  await Promise.all(streams.map((x) => x.opened));
  const sockets = Array.from({ length: 400 }, () => socket(s, 'site', admin.cookie));
  await Promise.all(sockets.map((x) => x.hello));
  t.ok(await until(() => s.loupe.services.feeds.subscribers('site') === 600), '600 SSE streams open');
  const started = performance.now();
  const ended = Promise.all([
    until(() => streams.every((x) => x.state.ended), 10_000).then(() => performance.now() - started),
    Promise.all(sockets.map((x) => x.closed)).then(() => performance.now() - started),
  ]);
  await s.loupe.close(); // the server's shutdown alone (s.close() also drops the test database)
  const took = performance.now() - started;
  const [sseEnded, socketsClosed] = await ended;
  await s.close();
  dropped = true;
  t.ok(
    streams.every((x) => x.state.ended),
    'every SSE stream ended',
  );
  // The embedded database's own close (it writes its data folder) comes on top on PGlite.
  const bound = process.env.DATABASE_URL ? 2_000 : 4_000;
  t.ok(took < bound, `shut down in ${Math.round(took)} ms`);
  t.ok(
    Math.max(sseEnded, socketsClosed) < 2_000,
    `the clients saw streams end ${Math.round(sseEnded)} ms and sockets close ${Math.round(socketsClosed)} ms into it`,
  );
  const codes = await Promise.all(sockets.map((x) => x.closed));
  t.same(new Set(codes), new Set([1001]), 'every WebSocket closed with 1001 (going away)');
});

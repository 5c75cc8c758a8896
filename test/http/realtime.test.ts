// Realtime over HTTP and the live WebSocket: visitors active in the last five minutes (humans only),
// detail access for the visitor rows, snapshots pushed while they change, log lines to detail callers.
import t from 'tap';
import WebSocket from 'ws';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({ ingestRate: { capacity: 1000, refillPerSecond: 1000 } });
t.teardown(() => s.close());
const site = await s.project('site', 'private');
const analyst = await s.member('analyst', ['site']);
const viewer = await s.member('viewer', ['site']);
const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const send = (events: unknown[], ua = chrome) =>
  s.request('POST', '/v2/ingest', { token: site.secretKey, body: { events }, headers: { 'user-agent': ua } });
const pv = (id: string, visitor: string, path: string, ip = '81.2.69.142') => ({
  id,
  name: 'pageview',
  visitor,
  page: { path },
  context: { ip },
});

t.test('realtime counts humans active in the last five minutes', async (t) => {
  await send([
    pv('1', 'va', '/'),
    pv('2', 'va', '/pricing'),
    pv('3', 'vb', '/'),
    { ...pv('4', 'vc', '/'), ts: new Date(Date.now() - 6 * 60_000).toISOString() },
  ]);
  await send([pv('5', 'bot', '/')], 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)');
  const res = await s.request('GET', '/v2/projects/site/realtime', viewer);
  t.equal(res.status, 200);
  t.equal(res.body.data.visitors, 2, 'va and vb; the bot and the stale visitor are out');
  t.same(res.body.data.pages[0], { value: '/', visitors: 2 });
  t.same(res.body.data.countries, [{ value: 'GB', visitors: 2 }]);
  t.equal(res.body.data.pageviewsPerMinute, 0.6, '3 human pageviews over 5 minutes');
  t.ok(Date.parse(res.body.window.to) - Date.parse(res.body.window.from) === 5 * 60_000, 'a five-minute window');
  t.notOk('visitors' in res.body, 'no rows without include');
  t.equal(
    (await s.request('GET', '/v2/projects/site/realtime?include=visitors', viewer)).status,
    403,
    'viewers: aggregates only',
  );
  const detail = await s.request('GET', '/v2/projects/site/realtime?include=visitors&limit=1', analyst);
  t.equal(detail.body.visitors.length, 1);
  t.match(detail.body.visitors[0], { visitor: String, page: String, country: 'GB', lastSeen: String });
  const rows = await s.request('GET', '/v2/projects/site/realtime/visitors', analyst);
  t.equal(rows.body.data.length, 2);
  for (const row of rows.body.data) t.match(row, { visitor: String, page: String, country: 'GB', lastSeen: String });
  t.ok(Date.parse(rows.body.data[0].lastSeen) >= Date.parse(rows.body.data[1].lastSeen), 'most recent first');
  t.equal(Date.parse(rows.body.window.to) - Date.parse(rows.body.window.from), 5 * 60_000, 'a five-minute window');
  t.equal(
    (await s.request('GET', '/v2/projects/site/realtime/visitors', viewer)).status,
    403,
    'the visitor rows need detail access',
  );
  t.equal(
    (await s.request('GET', '/v2/projects/site/realtime/visitors?limit=1', analyst)).body.data.length,
    1,
    'limit=1',
  );
  t.equal((await s.request('GET', '/v2/projects/site/realtime?limit=200', viewer)).status, 200, 'limit=200, the most');
  t.equal((await s.request('GET', '/v2/projects/site/realtime/visitors?limit=201', analyst)).status, 400, 'limit=201');
  t.equal(
    (await s.request('GET', '/v2/projects/site/realtime/visitors?limit=0001', analyst)).body.data.length,
    1,
    'limit=0001: digits, leading zeros and all',
  );
  for (const bad of ['0', '201', '1000', '1.5', 'ten', '-1', '+5', '1e2', '']) {
    const r = await s.request('GET', `/v2/projects/site/realtime?limit=${bad}`, viewer);
    t.equal(r.status, 400, `limit=${bad}`);
    t.equal(r.body.error.details[0].field, 'query.limit');
  }
});

function connect(headers: Record<string, string> = {}, project = 'site') {
  const ws = new WebSocket(`${s.url.replace('http', 'ws')}/v2/projects/${project}/live`, { headers });
  const messages: any[] = [];
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  const received = { bytes: 0, logs: 0 };
  ws.on('message', (m: Buffer) => {
    received.bytes += m.length;
    const message = JSON.parse(String(m));
    if (message.type === 'log') received.logs++;
    messages.push(message);
  });
  const next = async (type: string, after = 0, ms = 4000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const found = messages.slice(after).find((m) => m.type === type);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  };
  return { ws, messages, received, closed, next, opened: new Promise((r) => ws.on('open', r)) };
}

t.test('the live WebSocket pushes snapshots and, with detail access, log lines', async (t) => {
  const live = connect({ cookie: analyst.cookie });
  t.match(await live.next('hello'), { project: 'site', logs: true });
  t.equal((await live.next('realtime')).data.visitors, 2);
  const seen = live.messages.length;
  await send([pv('6', 'vd', '/docs')]);
  const update = await live.next('realtime', seen);
  t.equal(update?.data.visitors, 3, 'a changed snapshot is pushed within a second or so');
  t.match(await live.next('log', seen), { line: { kind: 'ingest', message: /^Accepted 1 of 1/ } });
  live.ws.close();

  const viewerLive = connect({ cookie: viewer.cookie });
  t.match(await viewerLive.next('hello'), { logs: false });
  const before = viewerLive.messages.length;
  await send([pv('7', 've', '/')]);
  await viewerLive.next('realtime', before);
  t.notOk(
    viewerLive.messages.some((m) => m.type === 'log'),
    'no log lines for a viewer',
  );
  viewerLive.ws.close();
});

t.test('a token can come as the first message; bad credentials close the socket', async (t) => {
  const token = await s.token('read', ['site']);
  const byMessage = connect();
  await byMessage.opened;
  byMessage.ws.send(JSON.stringify({ type: 'auth', token }));
  t.match(await byMessage.next('hello'), { project: 'site' });
  byMessage.ws.close();

  const bad = connect({ authorization: 'Bearer at_live_nope000000000000000000000000000' });
  t.equal(await bad.closed, 4401, 'unknown token: 4401');
  const other = connect({ cookie: (await s.member('viewer', ['elsewhere'])).cookie });
  t.equal(await other.closed, 4404, 'a private project the caller cannot read: 4404');
  const garbage = connect();
  await garbage.opened;
  garbage.ws.send('not json');
  t.equal(await garbage.closed, 4400);
});

t.test(
  "a token in the upgrade's Authorization header; on a public project anyone's feed starts at once, and a token adds the lines",
  async (t) => {
    const token = await s.token('read', ['site']);
    const byHeader = connect({ authorization: `Bearer ${token}` });
    t.match(await byHeader.next('hello'), { project: 'site', logs: true }, 'a read token by header: the lines too');
    byHeader.ws.close();

    const open = await s.project('open', 'public');
    const started = performance.now();
    const anyone = connect({}, 'open');
    t.match(await anyone.next('realtime'), { data: { visitors: 0 } }, 'the snapshot, without a credential');
    t.ok(performance.now() - started < 2_000, `no wait for a token (${Math.round(performance.now() - started)} ms)`);
    t.match(anyone.messages[0], { type: 'hello', project: 'open', logs: false });
    const seen = anyone.messages.length;
    anyone.ws.send(JSON.stringify({ type: 'auth', token: await s.token('read', ['open']) }));
    // Sent before the first is checked: the socket goes by the first credential it was given.
    anyone.ws.send(JSON.stringify({ type: 'auth', token: 'at_live_nope000000000000000000000000000' }));
    t.match(
      await anyone.next('hello', seen),
      { project: 'open', logs: true },
      'a token sent later: a hello with the lines',
    );
    // A rejected event: a line in the project's stream.
    t.equal(
      (
        await s.request('POST', '/v2/ingest', {
          body: { name: 'nope', props: 5 },
          headers: { 'x-project-key': open.publicKey },
        })
      ).status,
      202,
    );
    t.match(await anyone.next('log'), { line: { kind: 'ingest' } }, 'and the lines come');
    anyone.ws.send(JSON.stringify({ type: 'auth', token: 'at_live_nope000000000000000000000000000' }));
    await new Promise((r) => setTimeout(r, 200));
    t.equal(anyone.ws.readyState, WebSocket.OPEN, 'once a credential is settled, later messages are ignored');
    anyone.ws.close();
  },
);

t.test(
  'a client that stops reading is dropped at the backpressure limit; one that reads gets every line',
  async (t) => {
    const slow = connect({ cookie: analyst.cookie });
    const reader = connect({ cookie: analyst.cookie });
    t.match(await slow.next('hello'), { logs: true });
    t.match(await reader.next('hello'), { logs: true });
    // The slow client stops reading: what the server sends fills the kernel's buffers (a few MB on
    // loopback), then uWS's 256 KiB, and then the server closes it instead of buffering more.
    const socket = (slow.ws as unknown as { _socket: { pause: () => void; resume: () => void } })._socket;
    socket.pause();
    const bad = (i: number) => ({ id: `slow-${i}`, name: '', visitor: 'vs' }); // a rejected event: one log line each
    let lines = 0;
    for (let r = 0; r < 400 && reader.received.bytes < 12 * 1024 * 1024; r++) {
      const res = await send(Array.from({ length: 500 }, (_, i) => bad(r * 500 + i)));
      lines += res.body.rejected.length;
      // Let the reader catch up with what went out, so its count is what the server sent by now (within 10 s).
      for (const until = Date.now() + 10_000; reader.received.logs < lines - 2_000 && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 5));
      }
    }
    t.ok(
      reader.received.bytes >= 12 * 1024 * 1024,
      `the server sent ${(reader.received.bytes / 2 ** 20).toFixed(1)} MB of log lines to each client`,
    );
    const deadline = Date.now() + 10_000;
    while (reader.received.logs < lines && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.ok(reader.received.logs >= lines, `the reading client got every line (${lines})`);

    socket.resume();
    const code = await Promise.race([
      slow.closed,
      new Promise<string>((r) => setTimeout(() => r('still open'), 10_000)),
    ]);
    t.not(code, 'still open', `the slow client was closed (${code})`);
    const slowLines = slow.received.logs;
    t.ok(slowLines < lines, `it got ${slowLines} of the ${lines} lines before the close, not all`);
    t.equal(reader.ws.readyState, WebSocket.OPEN, 'the reading client stays connected');
    reader.ws.close();
  },
);

// Who is calling is decided before a body is read: a refused caller is answered while its body is still
// arriving (nothing of it kept or parsed) and the connection closes; an admitted one is read as before.
import net from 'node:net';
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
const site = await s.project('site', 'private');
const port = Number(new URL(s.url).port);

/** Sends the headers and the first bytes of a body that claims `length`, then waits; answers what came. */
function stalledBody(head: string, length: number, ms = 1500): Promise<{ answer: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`${head}Host: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"events":[`),
    );
    let answer = '';
    const timer = setTimeout(() => (socket.destroy(), resolve({ answer, closed: false })), ms);
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => (clearTimeout(timer), resolve({ answer, closed: true })));
    socket.on('error', () => {});
  });
}

t.test('a refused caller is answered before its body has arrived, and the connection closes', async (t) => {
  const unknownKey = await stalledBody('POST /v2/ingest HTTP/1.1\r\nX-Project-Key: pk_unknown\r\n', 900_000);
  t.match(unknownKey.answer, /^HTTP\/1\.1 401 /, 'an unknown project key');
  t.ok(unknownKey.closed);
  const anonymous = await stalledBody('PATCH /v2/projects/site HTTP/1.1\r\n', 900_000);
  t.match(anonymous.answer, /^HTTP\/1\.1 404 /, 'a private project, signed out');
  const badToken = await stalledBody('POST /v2/tokens HTTP/1.1\r\nAuthorization: Bearer at_live_nope\r\n', 900_000);
  t.match(badToken.answer, /^HTTP\/1\.1 401 /, 'an unknown token');
});

t.test('an admitted caller still has its body read and checked', async (t) => {
  const stalled = await stalledBody(
    `POST /v2/ingest HTTP/1.1\r\nAuthorization: Bearer ${site.secretKey}\r\n`,
    900_000,
    500,
  );
  t.equal(stalled.answer, '', 'the server waits for the rest of the body');
  const bad = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    rawBody: '{"events": [',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(bad.status, 400, 'malformed JSON from an admitted caller');
  const ok = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: { id: 'a1', name: 'pageview', visitor: 'v', page: { path: '/' } },
  });
  t.same([ok.status, ok.body.accepted], [202, 1]);
});

// Rate limits are taken at admission, before a body is read: an ingest key over its limit is answered 429
// while its body is still arriving, and reads without a credential are limited per client IP.
import net from 'node:net';
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({
  ingestRate: { capacity: 2, refillPerSecond: 0.001 },
  publicReadRate: { capacity: 3, refillPerSecond: 0.001 },
});
t.teardown(() => s.close());
const site = await s.project('site', 'public');
const owner = await s.member('owner');
const port = Number(new URL(s.url).port);

t.test('defaults: anonymous reads 10 a second per IP with a burst of 100', async (t) => {
  t.same(loadConfig({}).publicReadRate, { refillPerSecond: 10, capacity: 100 });
  const set = loadConfig({ PUBLIC_READ_RATE_PER_SECOND: '50', PUBLIC_READ_RATE_BURST: '500' });
  t.same(set.publicReadRate, { refillPerSecond: 50, capacity: 500 });
  t.throws(() => loadConfig({ PUBLIC_READ_RATE_BURST: '0' }), /PUBLIC_READ_RATE_BURST/);
});

t.test('ingest without a key is answered 401 before its body has arrived', async (t) => {
  const stalled = await stalledBody('POST /v2/ingest HTTP/1.1\r\n', 900_000);
  t.match(stalled.answer, /^HTTP\/1\.1 401 /);
  t.ok(stalled.closed);
});

t.test('an ingest key over its limit is answered 429 before its body has arrived', async (t) => {
  for (let i = 0; i < 2; i++) {
    const res = await s.request('POST', '/v2/ingest', {
      headers: { 'x-project-key': site.publicKey },
      body: { id: `e${i}`, name: 'pageview', visitor: 'v', page: { path: '/' } },
    });
    t.equal(res.status, 202, 'within the burst');
  }
  const stalled = await stalledBody(`POST /v2/ingest HTTP/1.1\r\nX-Project-Key: ${site.publicKey}\r\n`, 900_000);
  t.match(stalled.answer, /^HTTP\/1\.1 429 /, 'limited with 900 kB of body still to come');
  t.match(stalled.answer, /\r\nRetry-After: \d+\r\n/i);
  t.ok(stalled.closed, 'and the connection closed');
});

t.test('reads without a credential are limited per IP; credentials and health are not', async (t) => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await s.request('GET', '/v2/projects/site/stats?period=7d')).status);
  t.same(statuses, [200, 200, 200, 429, 429]);
  const limited = await s.request('GET', '/v2/projects/site/timeseries?period=7d');
  t.equal(limited.status, 429);
  t.match(limited.headers.get('retry-after'), /^\d+$/);
  t.equal(limited.body.error.code, 'RATE_LIMITED');
  t.equal((await s.request('GET', '/v2/projects/site/stats?period=7d', owner)).status, 200, 'a member reads on');
  t.equal((await s.request('GET', '/v2/health')).status, 200, 'health is not a project read');
});

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

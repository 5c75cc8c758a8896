import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createLoupe, requestInfo } from '../../src/sdk/server/index.ts';
import { recordingServer } from '../sdk-support/recording-server.ts';

t.test('batches on flushAt, with the secret key and context from a plain headers object', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, flushAt: 3, flushIntervalMs: 60_000 });
  const headers = {
    'user-agent': 'UA/1',
    'x-forwarded-for': '203.0.113.7, 10.0.0.1',
    cookie: 'a=1; loupe.session_token=s1; b=2',
  };
  t.match(client.track('signup', { plan: 'pro' }, { request: headers, visitor: 'v1' }), { ok: true });
  client.track('step', undefined, { request: headers });
  t.equal(loupe.requests.length, 0);
  client.track('done', undefined, { request: headers });
  await client.flush();
  t.equal(loupe.requests.length, 1, 'one batch of three');
  const [req] = loupe.requests;
  t.equal(req?.method, 'POST');
  t.equal(req?.url, '/v2/ingest');
  t.equal(req?.headers.authorization, 'Bearer sk_test');
  t.equal(req?.headers['content-type'], 'application/json');
  t.equal(req?.headers.cookie, 'loupe.session_token=s1', 'only the session cookie');
  t.same(
    req?.json.events.map((e: { name: string }) => e.name),
    ['signup', 'step', 'done'],
  );
  t.same(req?.json.events[0].context, { ip: '203.0.113.7', userAgent: 'UA/1' });
  t.same(req?.json.events[0].props, { plan: 'pro' });
  t.equal(req?.json.events[0].visitor, 'v1');
  t.match(req?.json.events[0].id, /^[0-9a-v]{7}[0-9A-Za-z_-]{14}$/, 'a time-ordered event id (src/sdk/ids.ts)');
  await client.shutdown();
});

t.test('the timer flushes; a different cookie is a different batch; no cookie sends none', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, flushIntervalMs: 30 });
  client.track('a', undefined, { request: { cookie: '__Secure-loupe.session_token=x; other=1' } });
  client.track('b', undefined, { request: { cookie: 'loupe.session_token=y' } });
  client.track('c', undefined, { request: { cookie: 'tracking=1' } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(loupe.requests.length, 3);
  const byName = Object.fromEntries(loupe.requests.map((r) => [r.json.events[0].name, r.headers.cookie]));
  t.same(byName, { a: '__Secure-loupe.session_token=x', b: 'loupe.session_token=y', c: undefined });
  await client.shutdown();
});

t.test('a custom cookie prefix', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, cookiePrefix: 'acme' });
  client.track('a', undefined, { request: { cookie: 'loupe.session_token=no; acme.session_token=yes' } });
  await client.flush();
  t.equal(loupe.requests[0]?.headers.cookie, 'acme.session_token=yes');
  await client.shutdown();
});

t.test('retries after a 500 and a 429 with identical ids, then succeeds', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  loupe.script.push({ status: 500 }, { status: 429, headers: { 'retry-after': '0' } });
  const client = createLoupe({
    secretKey: 'sk_test',
    host: loupe.url,
    retryBaseMs: 5,
    onError: () => t.fail('should succeed'),
  });
  client.track('a');
  client.track('b');
  await client.flush();
  t.equal(loupe.requests.length, 3);
  const bodies = loupe.requests.map((r) => r.body);
  t.equal(bodies[0], bodies[1], 'same body, so same ids');
  t.equal(bodies[1], bodies[2]);
  await client.shutdown();
});

t.test('gives up after maxRetries; a 400 is not retried', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  loupe.script.push(
    { status: 503 },
    { status: 503 },
    { status: 503 },
    { status: 400, body: '{"error":{"code":"BAD_REQUEST"}}' },
  );
  const failures: Array<{ reason: string; status?: number; events: unknown[] }> = [];
  const client = createLoupe({
    secretKey: 'sk_test',
    host: loupe.url,
    maxRetries: 2,
    retryBaseMs: 1,
    onError: (f) => failures.push(f),
  });
  client.track('lost');
  await client.flush();
  t.equal(loupe.requests.length, 3, 'one try and two retries');
  client.track('bad');
  await client.flush();
  t.equal(loupe.requests.length, 4, 'no retry for 400');
  t.same(
    failures.map((f) => [f.reason, f.status, f.events.length]),
    [
      ['gave-up', 503, 1],
      ['refused', 400, 1],
    ],
  );
  await client.shutdown();
});

t.test('server-side rejections are reported through onError', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  loupe.script.push({
    status: 202,
    body: JSON.stringify({
      accepted: 0,
      duplicates: 0,
      rejected: [
        { index: 0, code: 'LOUPE_INGEST_REJECTED', reason: 'VALIDATION_FAILED', field: 'ts', message: 'too old' },
      ],
    }),
  });
  const failures: Array<{ message: string }> = [];
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, onError: (f) => failures.push(f) });
  client.track('old', undefined, { ts: '2001-01-01T00:00:00Z' });
  await client.flush();
  t.match(failures[0]?.message, /old rejected: too old/);
  await client.shutdown();
});

t.test('validation is a value; shutdown flushes and closes', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, flushIntervalMs: 60_000 });
  t.match(client.track('pageview'), { ok: false, field: 'name' });
  t.match(client.track('x', Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, 1]))), {
    ok: false,
    field: 'props',
  });
  client.track('queued');
  await client.shutdown();
  t.equal(loupe.requests.length, 1);
  t.match(client.track('late'), { ok: false });
});

t.test('pageview from a Fetch Request: url, path, referrer, context', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const client = createLoupe({ secretKey: 'sk_test', host: loupe.url, release: 'r1' });
  const request = new Request('https://site.example/posts/42?x=1', {
    headers: {
      'user-agent': 'UA/fetch',
      'x-real-ip': '198.51.100.4',
      referer: 'https://google.com/',
      cookie: 'loupe.session_token=t',
    },
  });
  client.pageview({ request, url: request.url, title: 'Post', route: '/posts/:id' });
  await client.flush();
  const [event] = loupe.requests[0]?.json.events;
  t.same(event.page, {
    url: 'https://site.example/posts/42?x=1',
    path: '/posts/42',
    route: '/posts/:id',
    title: 'Post',
    referrer: 'https://google.com/',
  });
  t.same(event.context, { ip: '198.51.100.4', userAgent: 'UA/fetch' });
  t.equal(event.release, 'r1');
  t.equal(loupe.requests[0]?.headers.cookie, 'loupe.session_token=t');
  await client.shutdown();
});

t.test('context from a real IncomingMessage: socket address when no forwarding headers', async (t) => {
  const seen: Array<ReturnType<typeof requestInfo>> = [];
  const site = createServer((req: IncomingMessage, res) => {
    seen.push(requestInfo(req));
    res.end('ok');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => site.close(() => resolve())));
  const { port } = site.address() as AddressInfo;
  const get = (headers: Record<string, string>) =>
    new Promise<void>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, headers }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
  await get({ 'user-agent': 'UA/node', cookie: 'x=1; loupe.session_token=abc' });
  await get({ 'user-agent': 'UA/node', 'x-forwarded-for': '192.0.2.9' });
  t.same(seen[0], { ip: '127.0.0.1', userAgent: 'UA/node', cookie: 'loupe.session_token=abc' });
  t.equal(seen[1]?.ip, '192.0.2.9');
});

import t from 'tap';
import { createProxyHandler } from '../../src/sdk/server/proxy.ts';
import { recordingServer } from '../sdk-support/recording-server.ts';

t.test('forwards /v2/ingest with the client IP, the session cookie and the ingest headers only', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const proxy = createProxyHandler({ host: loupe.url, pathPrefix: '/_loupe' });
  const body = JSON.stringify({ events: [{ id: 'e1', name: 'pageview' }] });
  const response = await proxy(
    new Request('https://site.example/_loupe/v2/ingest?key=pk_test', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'text/plain',
        'user-agent': 'UA/browser',
        origin: 'https://site.example',
        'x-forwarded-for': '203.0.113.5, 10.0.0.2',
        cookie: 'theme=dark; loupe.session_token=s1; __Secure-loupe.session_token=s2',
        authorization: 'Bearer secret-of-the-site',
        'x-internal': 'no',
      },
    }),
  );
  t.equal(response.status, 202);
  t.same(await response.json(), { accepted: 1, duplicates: 0, rejected: [] });
  const [req] = loupe.requests;
  t.equal(req?.url, '/v2/ingest?key=pk_test');
  t.equal(req?.body, body);
  t.equal(req?.headers['x-forwarded-for'], '203.0.113.5');
  t.equal(req?.headers.cookie, 'loupe.session_token=s1; __Secure-loupe.session_token=s2');
  t.equal(req?.headers['user-agent'], 'UA/browser');
  t.equal(req?.headers.origin, 'https://site.example');
  t.equal(req?.headers['content-type'], 'text/plain');
  t.notOk(req?.headers.authorization, "the site's own credentials stay");
  t.notOk(req?.headers['x-internal']);
});

t.test('clientIp option wins; a 429 keeps Retry-After', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  loupe.script.push({ status: 429, headers: { 'retry-after': '7' }, body: '{"error":{"code":"RATE_LIMITED"}}' });
  const proxy = createProxyHandler({ host: loupe.url, clientIp: () => '198.51.100.1' });
  const response = await proxy(
    new Request('https://site.example/v2/ingest', {
      method: 'POST',
      body: '{}',
      headers: { 'x-forwarded-for': '1.1.1.1' },
    }),
  );
  t.equal(response.status, 429);
  t.equal(response.headers.get('retry-after'), '7');
  t.equal(loupe.requests[0]?.headers['x-forwarded-for'], '198.51.100.1');
});

t.test('forwards GET /v2/sdk/* with If-None-Match', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  loupe.script.push({
    status: 200,
    headers: { 'content-type': 'text/javascript', etag: '"abc"', 'set-cookie': 'evil=1' },
    body: 'console.log(1)',
  });
  const proxy = createProxyHandler({ host: loupe.url, pathPrefix: '/_loupe' });
  const response = await proxy(
    new Request('https://site.example/_loupe/v2/sdk/loupe.js', { headers: { 'if-none-match': '"old"' } }),
  );
  t.equal(response.status, 200);
  t.equal(await response.text(), 'console.log(1)');
  t.equal(response.headers.get('etag'), '"abc"');
  t.equal(response.headers.get('set-cookie'), null, 'no cookie set on the site');
  t.equal(loupe.requests[0]?.method, 'GET');
  t.equal(loupe.requests[0]?.url, '/v2/sdk/loupe.js');
  t.equal(loupe.requests[0]?.headers['if-none-match'], '"old"');
});

t.test('other paths and methods are refused without calling Loupe', async (t) => {
  const loupe = await recordingServer();
  t.teardown(loupe.close);
  const proxy = createProxyHandler({ host: loupe.url, pathPrefix: '/_loupe' });
  const refused = await proxy(new Request('https://site.example/_loupe/v2/projects'));
  t.equal(refused.status, 404);
  t.same(
    await refused.json(),
    { error: { code: 'NOT_FOUND', message: 'not a Loupe path', details: [] } },
    "Loupe's error body",
  );
  t.equal((await proxy(new Request('https://site.example/_loupe/v2/ingest'))).status, 405);
  t.equal(
    (await proxy(new Request('https://site.example/_loupe/v2/sdk/loupe.js', { method: 'POST', body: 'x' }))).status,
    405,
  );
  t.equal(loupe.requests.length, 0);
});

t.test('Loupe down is a 502', async (t) => {
  const proxy = createProxyHandler({ host: 'http://127.0.0.1:1' });
  const response = await proxy(new Request('https://site.example/v2/ingest', { method: 'POST', body: '{}' }));
  t.equal(response.status, 502);
});

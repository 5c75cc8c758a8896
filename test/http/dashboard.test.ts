// The dashboard's routes: the page at / and under /p/…, its assets under /assets/, with ETags (304),
// gzip for clients that take it, long caching for hashed assets, and the sign-in <meta> from config.
import { gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer({
  oidcIssuer: 'https://id.example.com',
  oauthClientId: 'loupe-dashboard-test',
  oauthClientSecret: 'dashboard-test-secret',
});
t.teardown(() => s.close());

/** A raw GET (fetch would decode gzip and hide Content-Encoding). */
function raw(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = httpRequest(s.url + path, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

t.test('the page is served at / and at every dashboard address, revalidated by ETag', async (t) => {
  for (const path of ['/', '/p/demo', '/p/demo/overview', '/p/demo/errors/iss_1']) {
    const res = await raw(path);
    t.equal(res.status, 200, path);
    t.match(res.headers['content-type'], /text\/html/);
    t.equal(res.headers['cache-control'], 'no-cache');
    t.match(res.headers['content-security-policy'], /default-src 'self'/);
    t.match(res.body.toString(), '<meta name="loupe-signin" content="/v2/auth/signin">', 'OIDC_ISSUER is set');
  }
  const first = await raw('/');
  const again = await raw('/', { 'if-none-match': String(first.headers.etag) });
  t.equal(again.status, 304);
  t.equal(again.body.length, 0);
});

t.test('assets: gzip when accepted (its own ETag), immutable caching, 304, 404 for unknown names', async (t) => {
  const html = (await raw('/')).body.toString();
  const script = /src="\/assets\/([^"]+)"/.exec(html)![1]!;
  const plain = await raw(`/assets/${script}`);
  t.equal(plain.status, 200);
  t.match(plain.headers['content-type'], /application\/javascript/);
  t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.notOk(plain.headers['content-encoding']);
  const gz = await raw(`/assets/${script}`, { 'accept-encoding': 'gzip, br' });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gz.headers.vary, 'Accept-Encoding');
  t.same(gunzipSync(gz.body), plain.body, 'the same file');
  t.not(gz.headers.etag, plain.headers.etag, 'each encoding has its own tag');
  const cached = await raw(`/assets/${script}`, {
    'accept-encoding': 'gzip',
    'if-none-match': String(gz.headers.etag),
  });
  t.equal(cached.status, 304);
  const missing = await s.request('GET', '/assets/nope-AAAAAAAA.js');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'NOT_FOUND');
});

t.test('the API keeps its JSON 404s beside the dashboard', async (t) => {
  const res = await s.request('GET', '/v2/nothing-here');
  t.equal(res.status, 404);
  t.equal(res.body.error.code, 'NOT_FOUND');
  const deep = await s.request('GET', '/p/a/b/c/d');
  t.equal(deep.status, 404);
});

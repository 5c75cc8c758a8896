// GET /v2/sdk/{file} through the real server: the three bundles with their caching headers,
// 304 on a matching If-None-Match, 404 with the error body for anything else.
import t from 'tap';
import { matchesEtag } from '../../src/routes/sdk.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());

t.test('serves each bundle with type, etag and cache headers', async (t) => {
  for (const file of ['loupe.js', 'loupe-widget.js', 'loupe.esm.js']) {
    const res = await s.request('GET', `/v2/sdk/${file}`, { headers: { origin: 'https://site.example' } });
    t.equal(res.status, 200, file);
    t.equal(res.headers.get('content-type'), 'application/javascript; charset=utf-8');
    t.equal(res.headers.get('cache-control'), 'public, max-age=3600, stale-while-revalidate=86400');
    t.match(res.headers.get('etag'), /^"[\w-]{27}"$/);
    t.equal(res.headers.get('access-control-allow-origin'), '*', 'cross-origin <script type=module> may load it');
    t.ok(res.text.length > 1000, `${file} has a body`);
  }
  const esm = await s.request('GET', '/v2/sdk/loupe.esm.js');
  t.match(esm.text, /export\s*\{/, 'the ESM build');
});

t.test('answers 304 to a matching If-None-Match, 200 otherwise', async (t) => {
  const first = await s.request('GET', '/v2/sdk/loupe.js');
  const etag = first.headers.get('etag') as string;
  const again = await s.request('GET', '/v2/sdk/loupe.js', { headers: { 'if-none-match': etag } });
  t.equal(again.status, 304);
  t.equal(again.text, '');
  t.equal(again.headers.get('etag'), etag);
  t.equal(again.headers.get('cache-control'), 'public, max-age=3600, stale-while-revalidate=86400');
  const listed = await s.request('GET', '/v2/sdk/loupe.js', { headers: { 'if-none-match': `"other", W/${etag}` } });
  t.equal(listed.status, 304, 'weak comparison inside a list');
  const stale = await s.request('GET', '/v2/sdk/loupe.js', { headers: { 'if-none-match': '"stale"' } });
  t.equal(stale.status, 200);
  t.equal(stale.text, first.text);
  const widget = await s.request('GET', '/v2/sdk/loupe-widget.js', { headers: { 'if-none-match': etag } });
  t.equal(widget.status, 200, "one file's etag does not match another");
});

t.test('unknown files are 404 with the error body', async (t) => {
  for (const path of ['/v2/sdk/nope.js', '/v2/sdk/..%2Fbuild.ts', '/v2/sdk/build.ts']) {
    const res = await s.request('GET', path);
    t.equal(res.status, 404, path);
    t.equal(res.body.error.code, 'NOT_FOUND');
    t.match(res.body.error.message, /loupe\.js/);
  }
  t.equal((await s.request('POST', '/v2/sdk/loupe.js')).status, 405);
});

t.test('matchesEtag', async (t) => {
  t.ok(matchesEtag('*', '"a"'));
  t.ok(matchesEtag('"a"', '"a"'));
  t.ok(matchesEtag('W/"a"', '"a"'));
  t.notOk(matchesEtag(undefined, '"a"'));
  t.notOk(matchesEtag('"ab"', '"a"'));
});

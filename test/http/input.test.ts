// Bad input gets a clear error body with the right status and the field at fault, and never changes
// what was stored: malformed JSON, wrong content type, oversized bodies, unknown and empty PATCH fields.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
await s.project('site', 'private');
const owner = await s.member('owner');

t.test('unknown paths are 404 and wrong methods 405 with Allow', async (t) => {
  const missing = await s.request('GET', '/v2/nothing/here');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'NOT_FOUND');
  const wrong = await s.request('PUT', '/v2/projects/site', owner);
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.get('allow'), 'GET, PATCH, DELETE, OPTIONS');
  t.ok(wrong.headers.get('x-request-id'), 'every answer carries a request id');
});

t.test('malformed JSON is 400, an unsupported content type 415', async (t) => {
  const bad = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    rawBody: '{"name": ',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.code, 'MALFORMED_JSON');
  const xml = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    rawBody: '<name/>',
    headers: { 'content-type': 'application/xml' },
  });
  t.equal(xml.status, 415);
  const plain = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    rawBody: '{"name":"Plain"}',
    headers: { 'content-type': 'text/plain' },
  });
  t.equal(plain.status, 200, 'text/plain holding JSON is accepted (sendBeacon)');
});

t.test('a body over 1 MiB is 413, declared or streamed', async (t) => {
  const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
  const res = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    rawBody: big,
    headers: { 'content-type': 'application/json' },
  });
  t.equal(res.status, 413);
  t.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
  const chunked = await fetch(`${s.url}/v2/projects/site`, {
    method: 'PATCH',
    headers: { cookie: owner.cookie, 'content-type': 'application/json' },
    body: new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        c.close();
      },
    }),
    duplex: 'half',
  } as RequestInit).catch((err: Error) => ({ status: -1, err }));
  t.ok(chunked.status === 413 || chunked.status === -1, `streamed oversize body refused (${chunked.status})`);
  const after = await s.request('GET', '/v2/projects/site', owner);
  t.equal(after.body.data.name, 'Plain', 'nothing changed');
});

t.test('PATCH validation names the field', async (t) => {
  const empty = await s.request('PATCH', '/v2/projects/site', { ...owner, body: {} });
  t.equal(empty.status, 400, 'empty body');
  t.match(empty.body.error.message, /at least one/);
  const none = await s.request('PATCH', '/v2/projects/site', owner);
  t.equal(none.status, 400, 'no body');
  const unknown = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { colour: 'red' } });
  t.equal(unknown.status, 400);
  t.equal(unknown.body.error.details[0].field, 'body.colour');
  for (const retentionDays of [0, 3651, 1.5, '30']) {
    const res = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { retentionDays } });
    t.equal(res.status, 400, `retentionDays ${JSON.stringify(retentionDays)}`);
    t.equal(res.body.error.details[0].field, 'body.retentionDays');
  }
  const origins = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    body: { allowedOrigins: ['not an origin'] },
  });
  t.equal(origins.body.error.details[0].field, 'body.allowedOrigins.0');
  const vis = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { visibility: 'secret' } });
  t.equal(vis.body.error.details[0].field, 'body.visibility');
});

t.test('PATCH changes only the fields sent', async (t) => {
  const res = await s.request('PATCH', '/v2/projects/site', {
    ...owner,
    body: { retentionDays: 30, allowedOrigins: ['https://Shop.example.com', 'https://*.example.org'] },
  });
  t.equal(res.status, 200);
  t.match(res.body.data, { id: 'site', visibility: 'private', publicVisitorData: false, retentionDays: 30 });
  t.type(res.body.data.updatedAt, 'string');
  const again = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { publicVisitorData: true } });
  t.equal(again.body.data.retentionDays, 30, 'retention kept');
  const read = await s.request('GET', '/v2/projects/site', owner);
  t.same(read.body.data.allowedOrigins, ['https://shop.example.com', 'https://*.example.org']);
  t.equal(read.body.data.name, 'Plain');
});

t.test('project create answers the secret key once; ids are unique', async (t) => {
  const res = await s.request('POST', '/v2/projects', {
    ...owner,
    body: { id: 'new-site', name: 'New site', visibility: 'public' },
  });
  t.equal(res.status, 201);
  t.match(res.body.data, { id: 'new-site', visibility: 'public', publicKey: /^pk_/, secretKey: /^sk_/ });
  const again = await s.request('POST', '/v2/projects', { ...owner, body: { id: 'new-site', name: 'Again' } });
  t.equal(again.status, 409);
  const badId = await s.request('POST', '/v2/projects', { ...owner, body: { id: 'Bad Id', name: 'x' } });
  t.equal(badId.body.error.details[0].field, 'body.id');
  const read = await s.request('GET', '/v2/projects/new-site', owner);
  t.notOk('secretKey' in read.body.data, 'not shown again');
  const rotated = await s.request('POST', '/v2/projects/new-site/keys/rotate', owner);
  t.match(rotated.body.data.secretKey, /^sk_/);
  t.not(rotated.body.data.secretKey, res.body.data.secretKey);
});

t.test('CORS: credentials only for the dashboard origin; preflight answered', async (t) => {
  const pre = await s.request('OPTIONS', '/v2/projects/site', {
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'PATCH' },
  });
  t.equal(pre.status, 204);
  t.equal(pre.headers.get('access-control-allow-origin'), '*');
  t.equal(pre.headers.get('access-control-allow-credentials'), null);
  t.match(pre.headers.get('access-control-allow-methods'), /PATCH/);
  t.match(pre.headers.get('access-control-allow-headers'), /X-Project-Key/);
  t.equal((await s.request('OPTIONS', '/v2/nowhere')).status, 404);
});

t.test('OpenAPI document and rendered reference', async (t) => {
  const doc = await s.request('GET', '/v2/openapi.json');
  t.equal(doc.status, 200);
  t.equal(doc.body.openapi, '3.1.0');
  t.ok(doc.body.paths['/v2/projects/{project}'].patch.requestBody, 'PATCH body schema generated from valibot');
  t.ok(doc.body.paths['/v2/tokens'].post, 'token route listed');
  const html = await s.request('GET', '/v2/docs');
  t.match(html.headers.get('content-type'), /text\/html/);
  t.match(html.text, /openapi\.json/);
});

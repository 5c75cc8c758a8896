// A change made with a session cookie must come from the dashboard (Origin, or Sec-Fetch-Site without
// one): a cross-site form or fetch riding on the cookie is 403. Tokens and reads are not affected.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const DASHBOARD = 'https://dash.example.com';
const s = await startTestServer({ dashboardOrigin: DASHBOARD });
t.teardown(() => s.close());
await s.project('site');
const owner = await s.member('owner');
const token = await s.token('admin');
const patch = (headers: Record<string, string>, auth: object = owner) =>
  s.request('PATCH', '/v2/projects/site', { ...auth, headers, body: { widgetReports: true } });

t.test('cookie changes: from the dashboard or the API itself, else 403', async (t) => {
  t.equal((await patch({ origin: DASHBOARD })).status, 200, 'the dashboard origin');
  t.equal((await patch({ origin: s.url })).status, 200, "the API's own origin (the dashboard served at /)");
  t.equal((await patch({ 'sec-fetch-site': 'same-origin' })).status, 200, 'no Origin, same-origin fetch');
  t.equal((await patch({})).status, 200, 'no Origin and no Sec-Fetch-Site: a server forwarding the cookie');
  for (const headers of <Record<string, string>[]>[
    { origin: 'https://evil.example.com' },
    { origin: 'https://dash.example.com.evil.com' },
    { origin: 'http://dash.example.com' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
  ]) {
    const res = await patch(headers);
    t.equal(res.status, 403, JSON.stringify(headers));
    t.equal(res.body.error.code, 'FORBIDDEN');
  }
  const del = await s.request('DELETE', '/v2/projects/site', {
    ...owner,
    headers: { origin: 'https://evil.example.com' },
  });
  t.equal(del.status, 403, 'a cross-site delete');
  const out = await s.request('POST', '/v2/auth/signout', {
    ...owner,
    headers: { origin: 'https://evil.example.com' },
  });
  t.equal(out.status, 403, 'a cross-site sign-out');
  t.equal((await s.request('GET', '/v2/auth/session', owner)).body.role, 'owner', 'still signed in');
});

t.test('reads with a cookie, and token changes, from anywhere', async (t) => {
  const read = await s.request('GET', '/v2/projects/site', {
    ...owner,
    headers: { origin: 'https://evil.example.com' },
  });
  t.equal(read.status, 200, 'a read (CORS keeps its answer from the other site)');
  t.equal(read.headers.get('access-control-allow-credentials'), null);
  t.equal(
    (await patch({ origin: 'https://evil.example.com' }, { token })).status,
    200,
    'a token is not sent by browsers on its own',
  );
});

t.test('an unknown cookie beside a cross-site change is no credential at all', async (t) => {
  const res = await patch({ origin: 'https://evil.example.com' }, { cookie: 'loupe.session_token=unknown' });
  t.equal(res.status, 404, 'anonymous: the private project is hidden');
});

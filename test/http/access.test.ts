// Black-box access rules over HTTP: every caller kind against every access level, with the spec's
// statuses (404 for a hidden private project, 401 signed out, 403 signed in, 401 for a bad token).
import t, { type Test } from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());

await s.project('pub', 'public');
const priv = await s.project('priv', 'private');
await s.project('other', 'private');
await s.project('doomed', 'private');

const callers = {
  anonymous: {},
  owner: { cookie: (await s.member('owner')).cookie },
  adminAll: { cookie: (await s.member('admin')).cookie },
  adminPriv: { cookie: (await s.member('admin', ['priv'])).cookie },
  adminOther: { cookie: (await s.member('admin', ['other'])).cookie },
  analystPriv: { cookie: (await s.member('analyst', ['priv'])).cookie },
  viewerPriv: { cookie: (await s.member('viewer', ['priv'])).cookie },
  viewerOther: { cookie: (await s.member('viewer', ['other'])).cookie },
  readAll: { token: await s.token('read') },
  readPriv: { token: await s.token('read', ['priv']) },
  readOther: { token: await s.token('read', ['other']) },
  sqlPriv: { token: await s.token('sql', ['priv']) },
  adminTokenAll: { token: await s.token('admin') },
  adminTokenPriv: { token: await s.token('admin', ['priv']) },
  cron: { token: 'cron-secret-for-tests-0123456789' },
  secretKey: { token: priv.secretKey },
  publicKey: { headers: { 'x-project-key': priv.publicKey } },
} as const;
type CallerName = keyof typeof callers;

async function expectStatuses(
  t: Test,
  method: string,
  path: string,
  expected: Partial<Record<CallerName, number>>,
  body?: unknown,
) {
  for (const [name, status] of Object.entries(expected)) {
    const res = await s.request(method, path, { ...callers[name as CallerName], body });
    t.equal(res.status, status, `${method} ${path} as ${name} → ${status} (${res.text.slice(0, 120)})`);
    if (status >= 400) t.type(res.body?.error?.code, 'string', 'error body has a code');
  }
}

t.test('project level: a private project is 404 to whoever cannot read it, never 403', async (t) => {
  await expectStatuses(t, 'GET', '/v2/projects/priv', {
    anonymous: 404,
    owner: 200,
    adminAll: 200,
    adminPriv: 200,
    adminOther: 404,
    analystPriv: 200,
    viewerPriv: 200,
    viewerOther: 404,
    readAll: 200,
    readPriv: 200,
    readOther: 404,
    sqlPriv: 200,
    adminTokenAll: 200,
    adminTokenPriv: 200,
    cron: 404,
    secretKey: 404,
    publicKey: 404,
  });
  await expectStatuses(t, 'GET', '/v2/projects/pub', {
    anonymous: 200,
    viewerOther: 200,
    readOther: 200,
    publicKey: 200,
  });
  await expectStatuses(t, 'GET', '/v2/projects/nope', { anonymous: 404, owner: 404 });
});

t.test('admin level: readable but not changeable is 401 signed out and 403 signed in', async (t) => {
  const body = { widgetReports: true };
  await expectStatuses(
    t,
    'PATCH',
    '/v2/projects/priv',
    {
      anonymous: 404,
      owner: 200,
      adminAll: 200,
      adminPriv: 200,
      adminOther: 404,
      analystPriv: 403,
      viewerPriv: 403,
      readPriv: 403,
      sqlPriv: 403,
      adminTokenAll: 200,
      adminTokenPriv: 200,
      readOther: 404,
      cron: 404,
    },
    body,
  );
  await expectStatuses(
    t,
    'PATCH',
    '/v2/projects/pub',
    {
      anonymous: 401,
      viewerOther: 403,
      readOther: 403,
      adminOther: 403,
      publicKey: 403,
      secretKey: 403,
      cron: 403,
      owner: 200,
    },
    body,
  );
  await expectStatuses(t, 'POST', '/v2/projects/priv/keys/rotate', { anonymous: 404, viewerPriv: 403, adminPriv: 200 });
});

t.test('owner level: only an owner deletes a project', async (t) => {
  await expectStatuses(t, 'DELETE', '/v2/projects/doomed', {
    anonymous: 404,
    adminAll: 403,
    adminTokenAll: 403,
    owner: 200,
  });
  t.equal((await s.request('GET', '/v2/projects/doomed', callers.owner)).status, 404, 'gone after delete');
});

t.test('organisation level: owner, or admin / admin token listing no projects', async (t) => {
  const body = { name: 'scripted', scope: 'read' };
  await expectStatuses(
    t,
    'POST',
    '/v2/tokens',
    {
      anonymous: 401,
      owner: 201,
      adminAll: 201,
      adminPriv: 403,
      analystPriv: 403,
      viewerPriv: 403,
      readAll: 403,
      adminTokenAll: 201,
      adminTokenPriv: 403,
      cron: 403,
      publicKey: 403,
    },
    body,
  );
  await expectStatuses(t, 'GET', '/v2/tokens', {
    anonymous: 401,
    owner: 200,
    adminAll: 200,
    adminPriv: 403,
    readAll: 403,
  });
  await expectStatuses(t, 'POST', '/v2/projects', { anonymous: 401, viewerPriv: 403, adminPriv: 403 }, { name: 'x' });
});

t.test('cron level: only the cron secret runs jobs', async (t) => {
  await expectStatuses(t, 'GET', '/v2/admin/jobs', { anonymous: 401, owner: 403, adminTokenAll: 403, cron: 200 });
  const run = await s.request('POST', '/v2/admin/jobs/sessions', callers.cron);
  t.equal(run.status, 200);
  t.equal(run.body.data.ok, true);
  const list = await s.request('GET', '/v2/admin/jobs', callers.cron);
  t.ok(
    list.body.data.find((j: { name: string; lastRun: unknown }) => j.name === 'sessions' && j.lastRun),
    'last run listed',
  );
  t.equal((await s.request('POST', '/v2/admin/jobs/nope', callers.cron)).status, 404);
  for (const job of ['retention', 'logs', 'salt']) {
    const r = await s.request('POST', `/v2/admin/jobs/${job}`, callers.cron);
    t.equal(r.body.data.ok, true, `${job} runs`);
  }
  const [line] = await s.loupe.services
    .sql`select kind, source, message from logs where project_id = 'priv' and kind = 'jobs' order by id desc limit 1`;
  t.match(line, { kind: 'jobs', source: 'cron', message: 'Job salt ran' }, 'each run writes a jobs line');
});

t.test('unknown, revoked and expired tokens are 401, never anonymous', async (t) => {
  const unknown = await s.request('GET', '/v2/projects', { token: 'at_live_doesnotexist000000000000000000' });
  t.equal(unknown.status, 401, 'unknown token on a public route');
  t.equal((await s.request('GET', '/v2/projects', { token: 'sk_notakey' })).status, 401, 'unknown secret key');
  t.equal((await s.request('GET', '/v2/projects', { token: 'garbage' })).status, 401, 'unknown bearer');
  t.equal(
    (await s.request('GET', '/v2/projects', { headers: { authorization: 'Basic abc' } })).status,
    401,
    'not a bearer',
  );
  t.equal(
    (await s.request('GET', '/v2/projects', { headers: { 'x-project-key': 'pk_nope' } })).status,
    401,
    'unknown public key',
  );

  const expiring = await s.token('read', null, new Date(Date.now() + 1500));
  t.equal((await s.request('GET', '/v2/projects/priv', { token: expiring })).status, 200, 'valid before expiry');
  await new Promise((r) => setTimeout(r, 1600));
  t.equal((await s.request('GET', '/v2/projects/priv', { token: expiring })).status, 401, 'expired, even while cached');
  t.equal((await s.request('GET', '/v2/projects/pub', { token: expiring })).status, 401, 'expired on a public project');

  const created = await s.request('POST', '/v2/tokens', {
    ...callers.owner,
    body: { name: 'to revoke', scope: 'read' },
  });
  const { id, token } = created.body.data;
  t.equal((await s.request('GET', '/v2/projects/priv', { token })).status, 200);
  const revoked = await s.request('DELETE', `/v2/tokens/${id}`, callers.owner);
  t.equal(revoked.status, 200);
  t.type(revoked.body.data.revokedAt, 'string');
  t.equal((await s.request('GET', '/v2/projects/priv', { token })).status, 401, 'revoked at once');
  t.equal((await s.request('DELETE', '/v2/tokens/tok_nope', callers.owner)).status, 404);

  const pastExpiry = await s.request('POST', '/v2/tokens', {
    ...callers.owner,
    body: { name: 'x', scope: 'read', expiresAt: '2001-01-01T00:00:00Z' },
  });
  t.equal(pastExpiry.status, 400);
  t.equal(pastExpiry.body.error.details[0].field, 'body.expiresAt');
});

t.test('the project list: anonymous callers see public projects only', async (t) => {
  const ids = async (c: object) =>
    (await s.request('GET', '/v2/projects', c)).body.data.map((p: { id: string }) => p.id).sort();
  t.same(await ids(callers.anonymous), ['pub']);
  t.same(await ids(callers.viewerPriv), ['priv', 'pub']);
  t.same(await ids(callers.readOther), ['other', 'pub']);
  t.same(await ids(callers.owner), ['other', 'priv', 'pub']);
  const anon = (await s.request('GET', '/v2/projects')).body.data[0];
  t.notOk('publicKey' in anon || 'allowedOrigins' in anon, 'settings and keys only for admins');
});

t.test('the session read', async (t) => {
  const out = await s.request('GET', '/v2/auth/session');
  t.same(out.body, { user: null, session: null, role: null, isAdmin: false }, 'signed-out shape exactly');
  const me = await s.request('GET', '/v2/auth/session', callers.adminPriv);
  t.equal(me.body.role, 'admin');
  t.equal(me.body.isAdmin, true);
  t.match(me.body.user, { id: /^usr_/, login: /@example\.com$/ });
  t.type(me.body.session.expiresAt, 'string');
  const viewer = await s.request('GET', '/v2/auth/session', callers.viewerPriv);
  t.equal(viewer.body.isAdmin, false);
  const secure = await s.request('GET', '/v2/auth/session', {
    cookie: callers.owner.cookie.replace('loupe.', '__Secure-loupe.'),
  });
  t.equal(secure.body.role, 'owner', '__Secure- cookie variant');
  const bogus = await s.request('GET', '/v2/auth/session', { cookie: 'loupe.session_token=nope' });
  t.equal(bogus.body.user, null, 'an unknown session cookie is signed out');
});

// Sign-in against a real OpenID Connect provider (oidc-provider on loopback), over HTTP: the happy path and
// every refusal (not a member, wrong state, replayed callback and code, tampered redirect, expired
// session, removed member), sign-out, the cookie's attributes and the session's sliding end.
import t from 'tap';
import { startIdentityProvider } from '../support/identity-provider.ts';
import { startTestServer } from '../support/server.ts';
import { cookieHeader, hop, sessionCookieOf, toCallback, type Jar } from '../support/sign-in-client.ts';

const idp = await startIdentityProvider();
const s = await startTestServer({
  oidcIssuer: idp.issuer,
  oauthClientId: idp.clientId,
  oauthClientSecret: idp.clientSecret,
});
idp.register(`${s.url}/v2/auth/callback`);
t.teardown(async () => {
  await s.close();
  await idp.close();
});
const owner = await s.member('owner');
const addMember = async (login: string, role: string, projectIds: string[] | null = null) => {
  const res = await s.request('POST', '/v2/members', { ...owner, body: { login, role, projectIds } });
  if (res.status !== 201) throw new Error(`could not add ${login}: ${res.status} ${res.text}`);
  return res.body.data;
};
await addMember('alice', 'analyst', ['site']);
const sessionOf = async (jar: Jar) =>
  (await s.request('GET', '/v2/auth/session', { cookie: cookieHeader(jar, s.url) })).body;

t.test('a member signs in: cookie, landing place, session shape', async (t) => {
  const jar: Jar = new Map();
  idp.next = {
    login: 'alice',
    claims: { preferred_username: 'alice', name: 'Alice A', picture: 'https://img.example/a.png' },
  };
  const callback = await toCallback(jar, s.url, '/projects/site?tab=errors');
  const done = await hop(jar, callback);
  t.equal(done.status, 302, JSON.stringify(done.body));
  t.equal(done.location, `${s.url}/projects/site?tab=errors`, 'lands where sign-in began');
  const cookie = done.setCookies.find((c) => c.startsWith('loupe.session_token='));
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Lax/);
  t.match(cookie, /Path=\//);
  t.notMatch(cookie, /Secure/, 'plain http: not Secure, not __Secure-');
  t.ok(
    done.setCookies.some((c) => /^loupe\.signin_flow=;.*Max-Age=0/.test(c)),
    'the flow cookie is cleared',
  );
  const me = await sessionOf(jar);
  t.match(me, {
    user: { id: /^usr_/, login: 'alice', name: 'Alice A', avatarUrl: 'https://img.example/a.png' },
    session: { expiresAt: String },
    role: 'analyst',
    isAdmin: false,
  });
  const days = (Date.parse(me.session.expiresAt) - Date.now()) / 86_400_000;
  t.ok(days > 29.9 && days <= 30, `30 days (${days})`);
  const listed = await s.request('GET', '/v2/members', owner);
  t.type(listed.body.data.find((m: { login: string }) => m.login === 'alice').lastSeenAt, 'string', 'last seen');

  const out = await hop(jar, `${s.url}/v2/auth/signout`, { origin: s.url }, 'POST');
  t.equal(out.status, 200);
  t.same(out.body, { signedOut: true });
  t.ok(
    out.setCookies.some((c) => /^loupe\.session_token=;.*Max-Age=0/.test(c)),
    'the cookie is cleared',
  );
  t.equal(sessionCookieOf(jar, s.url), undefined);
  const [row] = await s.loupe.services
    .sql`select count(*)::int as n from auth_sessions s join dashboard_users u on u.id = s.user_id where u.login = 'alice'`;
  t.equal(row!.n, 0, 'the session row is gone');
});

t.test('login falls back to email, then sub; matched without case', async (t) => {
  await addMember('Bob@Example.com', 'viewer', ['site']);
  await addMember('sub-only-42', 'viewer', ['site']);
  for (const [claims, login] of [
    [{ email: 'bob@example.com' }, 'Bob@Example.com'],
    [{}, 'sub-only-42'],
  ] as const) {
    const jar: Jar = new Map();
    idp.next = { login: login === 'sub-only-42' ? 'sub-only-42' : 'bob-account', claims };
    const done = await hop(jar, await toCallback(jar, s.url));
    t.equal(done.status, 302, JSON.stringify(done.body));
    t.equal((await sessionOf(jar)).user?.login, login);
  }
});

t.test('refused: a login that is not a member', async (t) => {
  const jar: Jar = new Map();
  idp.next = { login: 'mallory' };
  const done = await hop(jar, await toCallback(jar, s.url));
  t.equal(done.status, 403);
  t.equal(done.body.error.code, 'FORBIDDEN');
  t.match(done.body.error.message, /mallory is not a member/);
  t.equal(sessionCookieOf(jar, s.url), undefined, 'no session cookie');
});

t.test("refused: a login that spells a member's id", async (t) => {
  const [member] = (await s.request('GET', '/v2/members', owner)).body.data;
  const jar: Jar = new Map();
  idp.next = { login: 'someone', claims: { preferred_username: member.id } };
  const done = await hop(jar, await toCallback(jar, s.url));
  t.equal(done.status, 403, 'matched by login only');
  t.equal(sessionCookieOf(jar, s.url), undefined);
});

t.test('refused: a wrong state, and a callback without the flow cookie', async (t) => {
  const jar: Jar = new Map();
  idp.next = { login: 'alice' };
  const callback = new URL(await toCallback(jar, s.url));
  callback.searchParams.set('state', 'forged-state');
  const wrong = await hop(jar, callback.href);
  t.equal(wrong.status, 400);
  t.match(wrong.body.error.message, /state does not match/);
  t.equal(sessionCookieOf(jar, s.url), undefined);

  const other: Jar = new Map();
  idp.next = { login: 'alice' };
  const stolen = await toCallback(other, s.url);
  const elsewhere = await hop(new Map(), stolen);
  t.equal(elsewhere.status, 400, 'a callback URL used by another browser (no flow cookie) is refused');
  t.match(elsewhere.body.error.message, /No sign-in was started in this browser/);
});

t.test('refused: a replayed callback, and a replayed code in a new flow', async (t) => {
  const jar: Jar = new Map();
  idp.next = { login: 'alice' };
  const callback = await toCallback(jar, s.url);
  const flowCookie = jar.get(new URL(s.url).host)!.get('loupe.signin_flow')!;
  t.equal((await hop(jar, callback)).status, 302, 'first use signs in');
  const replay = await hop(new Map([[new URL(s.url).host, new Map([['loupe.signin_flow', flowCookie]])]]), callback);
  t.equal(replay.status, 400, 'the same callback again');
  t.match(replay.body.error.message, /expired or was already used/);

  // A new flow in the same browser, answered with the old code: state passes, the provider refuses the code.
  const fresh = new URL(await toCallback(jar, s.url));
  const code = new URL(callback).searchParams.get('code')!;
  fresh.searchParams.set('code', code);
  const reused = await hop(jar, fresh.href);
  t.equal(reused.status, 400);
  t.match(reused.body.error.message, /refused/);
  t.match(reused.body.error.message, /invalid_grant/);
});

t.test('refused: a redirect off the dashboard', async (t) => {
  for (const redirect of [
    'https://evil.example.com/',
    '//evil.example.com/x',
    '/\\evil.example.com',
    'javascript:alert(1)',
    `${s.url.replace('127.0.0.1', 'localhost')}/x`,
  ]) {
    const res = await hop(new Map(), `${s.url}/v2/auth/signin?redirect=${encodeURIComponent(redirect)}`);
    t.equal(res.status, 400, redirect);
    t.equal(res.body.error.details[0].field, 'query.redirect');
  }
  const own = await hop(new Map(), `${s.url}/v2/auth/signin?redirect=${encodeURIComponent(`${s.url}/x`)}`);
  t.equal(own.status, 302, 'a URL on the API origin (where the dashboard is served) is fine');
});

t.test('an expired session is signed out; a used one slides', async (t) => {
  const jar: Jar = new Map();
  idp.next = { login: 'alice' };
  await hop(jar, await toCallback(jar, s.url));
  const token = sessionCookieOf(jar, s.url)!;
  const sql = s.loupe.services.sql;
  const { hashSecret } = await import('../../src/secrets.ts');
  await sql`update auth_sessions set expires_at = now() + interval '28 days', last_seen_at = now() - interval '2 days' where token_hash = ${hashSecret(token)}`;
  s.loupe.services.credentials.forgetAll();
  const slid = await sessionOf(jar);
  const days = (Date.parse(slid.session.expiresAt) - Date.now()) / 86_400_000;
  t.ok(days > 29.9, `a use past a day extends it to 30 days (${days})`);

  await sql`update auth_sessions set expires_at = now() - interval '1 second' where token_hash = ${hashSecret(token)}`;
  s.loupe.services.credentials.forgetAll();
  t.same(await sessionOf(jar), { user: null, session: null, role: null, isAdmin: false }, 'expired: signed out');
  const read = await s.request('GET', '/v2/members', { cookie: cookieHeader(jar, s.url) });
  t.equal(read.status, 401, 'and no access');
});

t.test("a removed member's open session ends at once; a role change holds at once", async (t) => {
  await addMember('carol', 'admin');
  const jar: Jar = new Map();
  idp.next = { login: 'carol' };
  await hop(jar, await toCallback(jar, s.url));
  const cookie = cookieHeader(jar, s.url)!;
  t.equal((await s.request('GET', '/v2/members', { cookie })).status, 200, 'an admin lists members');
  await s.request('PATCH', '/v2/members/carol', { ...owner, body: { role: 'viewer', projectIds: ['site'] } });
  t.equal((await s.request('GET', '/v2/members', { cookie })).status, 403, 'demoted: at once');
  const removed = await s.request('DELETE', '/v2/members/carol', owner);
  t.equal(removed.status, 200);
  t.equal((await sessionOf(jar)).user, null, 'removed: signed out at once');
  t.equal((await s.request('GET', '/v2/members', { cookie })).status, 401);
});

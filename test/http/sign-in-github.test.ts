// OAUTH_PROVIDER=github: sign-in through GitHub's OAuth app flow (no OpenID Connect), against a stand-in
// for GitHub Enterprise Server's endpoints: the login comes from the user API; PKCE, state, a used code
// and non-members are refused as with OpenID Connect.
import t from 'tap';
import { startFakeGitHub } from '../support/fake-github.ts';
import { startTestServer } from '../support/server.ts';
import { cookieHeader, hop, sessionCookieOf, toCallback, type Jar } from '../support/sign-in-client.ts';

const gh = await startFakeGitHub();
const s = await startTestServer({
  oauthProvider: 'github',
  githubUrl: gh.url,
  oauthClientId: gh.clientId,
  oauthClientSecret: gh.clientSecret,
});
t.teardown(async () => {
  await s.close();
  await gh.close();
});
const owner = await s.member('owner');
await s.request('POST', '/v2/members', { ...owner, body: { login: 'octocat', role: 'admin' } });

t.test('a member signs in with their GitHub login', async (t) => {
  const jar: Jar = new Map();
  gh.next = { login: 'octocat', name: 'The Octocat' };
  const callback = await toCallback(jar, s.url, '/welcome');
  const done = await hop(jar, callback);
  t.equal(done.status, 302, JSON.stringify(done.body));
  t.equal(done.location, `${s.url}/welcome`);
  const me = (await s.request('GET', '/v2/auth/session', { cookie: cookieHeader(jar, s.url) })).body;
  t.match(me, {
    user: { login: 'octocat', name: 'The Octocat', avatarUrl: 'https://avatars.example/octocat' },
    role: 'admin',
    isAdmin: true,
  });
  // The same code once more, in a new flow of this browser: GitHub refuses it.
  const fresh = new URL(await toCallback(jar, s.url));
  fresh.searchParams.set('code', new URL(callback).searchParams.get('code')!);
  const reused = await hop(jar, fresh.href);
  t.equal(reused.status, 400);
  t.match(reused.body.error.message, /refused/);
});

t.test('refused: not a member, a wrong state', async (t) => {
  const jar: Jar = new Map();
  gh.next = { login: 'stranger' };
  const denied = await hop(jar, await toCallback(jar, s.url));
  t.equal(denied.status, 403);
  t.equal(sessionCookieOf(jar, s.url), undefined);
  gh.next = { login: 'octocat' };
  const forged = new URL(await toCallback(jar, s.url));
  forged.searchParams.set('state', 'nope');
  t.equal((await hop(jar, forged.href)).status, 400);
});

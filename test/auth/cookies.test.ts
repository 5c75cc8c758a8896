// The Set-Cookie values: names and attributes over http and https, with and without AUTH_COOKIE_DOMAIN.
import t from 'tap';
import {
  clearSessionCookie,
  cookieSettings,
  flowCookie,
  flowCookieValue,
  sessionCookie,
} from '../../src/auth/cookies.ts';
import { loadConfig } from '../../src/config.ts';

const config = (env: Record<string, string>) => loadConfig({ PORT: '0', ...env });

t.test('over https: __Secure-, Secure, the parent domain', async (t) => {
  const c = cookieSettings(config({ PUBLIC_URL: 'https://api.example.com', AUTH_COOKIE_DOMAIN: 'example.com' }), {});
  t.equal(
    sessionCookie(c, 'abc'),
    '__Secure-loupe.session_token=abc; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax; Domain=example.com; Secure',
  );
  t.equal(
    clearSessionCookie(c),
    '__Secure-loupe.session_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Domain=example.com; Secure',
  );
  t.equal(
    flowCookie(c, 'f'),
    '__Secure-loupe.signin_flow=f; Path=/v2/auth; Max-Age=600; HttpOnly; SameSite=Lax; Secure',
  );
});

t.test('over http: the plain name; behind a trusted proxy X-Forwarded-Proto decides', async (t) => {
  t.equal(
    sessionCookie(cookieSettings(config({ COOKIE_PREFIX: 'acme' }), {}), 'x'),
    'acme.session_token=x; Path=/; Max-Age=34560000; HttpOnly; SameSite=Lax',
  );
  const proxied = cookieSettings(config({ TRUST_PROXY: '1' }), { 'x-forwarded-proto': 'https' });
  t.equal(proxied.secure, true);
  t.equal(cookieSettings(config({}), { 'x-forwarded-proto': 'https' }).secure, false, 'not without TRUST_PROXY');
});

t.test('reading the flow cookie: either name, bad escapes skipped', async (t) => {
  t.equal(flowCookieValue('a=1; loupe.signin_flow=v1', 'loupe'), 'v1');
  t.equal(flowCookieValue('__Secure-loupe.signin_flow=v2', 'loupe'), 'v2');
  t.equal(flowCookieValue('loupe.signin_flow=%E0%A4%A', 'loupe'), undefined);
  t.equal(flowCookieValue(undefined, 'loupe'), undefined);
});

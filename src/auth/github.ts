// Sign-in with GitHub (OAuth 2 without OpenID Connect), through openid-client: the code flow with PKCE
// and state against GitHub's endpoints, then the login from its user endpoint. GitHub Enterprise Server:
// GITHUB_URL names it (its API lives under /api/v3).
import * as client from 'openid-client';
import { badRequest } from '../errors.ts';
import type { SignInProvider } from './oidc.ts';

export type GitHubOptions = { url: string; clientId: string; clientSecret: string | undefined };

export function createGitHubProvider(opts: GitHubOptions): SignInProvider {
  const base = new URL(opts.url);
  const web = base.origin + base.pathname.replace(/\/+$/, '');
  const api = base.hostname === 'github.com' ? 'https://api.github.com' : `${web}/api/v3`;
  const config = new client.Configuration(
    {
      issuer: web,
      authorization_endpoint: `${web}/login/oauth/authorize`,
      token_endpoint: `${web}/login/oauth/access_token`,
    },
    opts.clientId,
    opts.clientSecret,
  );
  // Plain http only for a server on this machine (tests, development).
  if (base.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname))
    client.allowInsecureRequests(config);

  return {
    async start(redirectUri) {
      // No ID token, so no nonce to check; one is made anyway, as the flow record keeps one.
      const checks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'read:user',
        state: checks.state,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
        allow_signup: 'false',
      });
      return { url: url.href, checks };
    },

    async finish(callbackUrl, redirectUri, checks) {
      let accessToken: string;
      try {
        const tokens = await client.authorizationCodeGrant(
          config,
          callbackUrl,
          { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state },
          { redirect_uri: redirectUri },
        );
        accessToken = tokens.access_token;
      } catch (err) {
        if (err instanceof client.ClientError || err instanceof client.ResponseBodyError)
          throw badRequest(`The sign-in was refused: ${err.message}.`);
        throw err;
      }
      const res = await fetch(`${api}/user`, {
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/vnd.github+json',
          'user-agent': 'loupe',
        },
      });
      if (!res.ok) throw badRequest(`GitHub did not name the user (HTTP ${res.status}).`);
      const user = (await res.json()) as { login?: unknown; name?: unknown; avatar_url?: unknown };
      if (typeof user.login !== 'string' || user.login === '') throw badRequest('GitHub named no user.');
      const text = (x: unknown) => (typeof x === 'string' && x !== '' ? x : null);
      return { login: user.login, name: text(user.name), avatarUrl: text(user.avatar_url) };
    },
  };
}

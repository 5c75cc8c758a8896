// The identity provider, through openid-client: discovery from OIDC_ISSUER, the authorization URL with
// PKCE (S256), state and nonce, and the code exchange that checks them and names the provider's login.
import * as client from 'openid-client';
import type { FlowChecks } from '../db/auth-flows.ts';
import { badRequest } from '../errors.ts';

/** What the callback learns about who signed in. */
export type Identity = { login: string; name: string | null; avatarUrl: string | null };

/** The values one sign-in must carry from its start to its callback (stored with the flow). */
export type { FlowChecks };

export type SignInProvider = {
  start: (redirectUri: string) => Promise<{ url: string; checks: FlowChecks }>;
  /** `callbackUrl` is the callback as the browser reached it (with code and state). */
  finish: (callbackUrl: URL, redirectUri: string, checks: FlowChecks) => Promise<Identity>;
};

export type OidcOptions = { issuer: string; clientId: string; clientSecret: string | undefined };

export function createOidcProvider(opts: OidcOptions): SignInProvider {
  let discovered: Promise<client.Configuration> | null = null;
  // Discovered once, on first use (a provider down at start does not stop the server); a failure is retried.
  const configuration = () =>
    (discovered ??= discover(opts).catch((err: unknown) => {
      discovered = null;
      throw err;
    }));

  return {
    async start(redirectUri) {
      const config = await configuration();
      const checks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid profile email',
        response_type: 'code',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, checks };
    },

    async finish(callbackUrl, redirectUri, checks) {
      const config = await configuration();
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(
          config,
          callbackUrl,
          {
            pkceCodeVerifier: checks.codeVerifier,
            expectedState: checks.state,
            expectedNonce: checks.nonce,
            idTokenExpected: true,
          },
          { redirect_uri: redirectUri },
        );
      } catch (err) {
        throw refusedBy(err);
      }
      const claims = tokens.claims();
      if (!claims) throw badRequest('The identity provider sent no ID token.');
      let info: Record<string, unknown> = claims;
      // Many providers put only `sub` in the ID token when they also issue an access token: the names are
      // then read from the userinfo endpoint.
      if (!claims.preferred_username && !claims.email && config.serverMetadata().userinfo_endpoint) {
        try {
          info = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
        } catch (err) {
          throw refusedBy(err);
        }
      }
      return identityOf(info);
    },
  };
}

/** login = preferred_username, else email, else sub (documented in docs/sign-in.md). */
export function identityOf(claims: Record<string, unknown>): Identity {
  const text = (k: string) => (typeof claims[k] === 'string' && claims[k] !== '' ? (claims[k] as string) : null);
  const login = text('preferred_username') ?? text('email') ?? text('sub');
  if (!login) throw badRequest('The identity provider named no user.');
  return { login, name: text('name'), avatarUrl: text('picture') };
}

async function discover(opts: OidcOptions): Promise<client.Configuration> {
  const issuer = new URL(opts.issuer);
  // Plain http only for a provider on this machine (development, tests); anywhere else it must be https.
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return client.discovery(
    issuer,
    opts.clientId,
    opts.clientSecret,
    undefined,
    issuer.protocol === 'http:' && loopback ? { execute: [client.allowInsecureRequests] } : undefined,
  );
}

/** A provider's refusal (a wrong state, a used code, a bad nonce) is the browser's problem: a 400 that says why. */
function refusedBy(err: unknown): Error {
  if (
    err instanceof client.ClientError ||
    err instanceof client.ResponseBodyError ||
    err instanceof client.AuthorizationResponseError
  ) {
    const code = (err as { error?: string }).error ?? (err as { code?: string }).code;
    return badRequest(`The sign-in was refused: ${err.message}${code ? ` (${code})` : ''}.`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

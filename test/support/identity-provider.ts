// A real OpenID Connect provider for tests (oidc-provider, the certified implementation) on a loopback
// port. Its login step signs in whoever `next.login` names at once, or, with `form` set, shows a login form
// that a browser test fills in; the flow is otherwise the real one (redirects, PKCE, state, nonce, code
// exchange, userinfo).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Provider } from 'oidc-provider';

export type TestIdentityProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-in is: the account's id; `claims` replaces the default claims of that account. */
  next: { login: string; claims?: Record<string, string> };
  /** Show a login form (a Username field and a Continue button) instead of signing `next` in at once. */
  form: boolean;
  /** Registers the client's redirect URI (known once the API listens) and starts answering. */
  register: (redirectUri: string) => void;
  close: () => Promise<void>;
};

export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: TestIdentityProvider = {
    issuer,
    clientId: 'loupe-test',
    clientSecret: 'loupe-test-secret-0123456789abcdef',
    next: { login: 'nobody' },
    form: false,
    register: (redirectUri) => server.on('request', configure(idp, redirectUri).callback()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return idp;
}

function configure(idp: TestIdentityProvider, redirectUri: string): Provider {
  const accountClaims = new Map<string, Record<string, string>>();
  const provider = new Provider(idp.issuer, {
    clients: [
      {
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'picture'], email: ['email'] },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({
        ...(accountClaims.get(id) ?? {
          sub: id,
          preferred_username: id,
          email: `${id}@idp.example`,
          name: `Person ${id}`,
        }),
        sub: accountClaims.get(id)?.sub ?? id,
      }),
    }),
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
  });

  // The login and consent steps, answered at once for `idp.next` (or for the login the form was sent).
  provider.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/interaction/')) return next();
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === 'login') {
      if (idp.form && ctx.method !== 'POST') return void loginForm(ctx);
      const login = idp.form ? await submittedLogin(ctx.req) : idp.next.login;
      // `next.claims` still applies when the form names the same account.
      const claims = login === idp.next.login ? idp.next.claims : undefined;
      if (claims) accountClaims.set(login, { sub: login, ...claims });
      else accountClaims.delete(login);
      await provider.interactionFinished(
        ctx.req,
        ctx.res,
        { login: { accountId: login } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: idp.clientId });
    grant.addOIDCScope('openid profile email');
    const grantId = await grant.save();
    await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });
  return provider;
}

/** The provider's login page: one field, posted back to the same interaction address. */
function loginForm(ctx: { status: number; type: string; body: unknown; path: string }) {
  ctx.status = 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html><html lang="en"><title>Test provider: sign in</title>
<form method="post" action="${ctx.path}"><label>Username <input name="login" autocomplete="username"></label>
<button type="submit">Continue</button></form></html>`;
}

async function submittedLogin(req: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString()).get('login') ?? '';
}

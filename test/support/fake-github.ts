// A stand-in for GitHub's OAuth app endpoints and its user API, as GitHub Enterprise Server lays them out
// (/login/oauth/authorize, /login/oauth/access_token, /api/v3/user): it checks the client secret, the
// redirect URI and PKCE (S256), answers errors the way GitHub does (HTTP 200 with an `error` member), and
// signs in whoever `next` names at once.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeGitHub = {
  url: string;
  clientId: string;
  clientSecret: string;
  next: { login: string; name?: string };
  close: () => Promise<void>;
};

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const codes = new Map<string, { challenge: string; redirectUri: string; login: string; name?: string }>();
  const tokens = new Map<string, { login: string; name?: string }>();
  const gh: FakeGitHub = {
    url: '',
    clientId: 'gh-client',
    clientSecret: 'gh-secret-0123456789',
    next: { login: 'octo' },
    close: async () => {},
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', gh.url);
    const json = (body: unknown) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== gh.clientId || q.get('code_challenge_method') !== 'S256')
        return void res.writeHead(400).end();
      const code = randomBytes(10).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, ...gh.next });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const [id, secret] = basic
        ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent)
        : [form.get('client_id'), form.get('client_secret')];
      if (id !== gh.clientId || secret !== gh.clientSecret) return json({ error: 'incorrect_client_credentials' });
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || grant.redirectUri !== form.get('redirect_uri')) return json({ error: 'bad_verification_code' });
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge)
        return json({ error: 'bad_verification_code' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, { login: grant.login, name: grant.name });
      return json({ access_token: token, token_type: 'bearer', scope: 'read:user' });
    }
    if (url.pathname === '/api/v3/user') {
      const user = tokens.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
      if (!user)
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
      return json({
        login: user.login,
        id: 1,
        name: user.name ?? null,
        avatar_url: `https://avatars.example/${user.login}`,
      });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gh.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gh.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return gh;
}

// The fuzzer's target: a test server with a public and a private project holding a few events, and one
// credential of every kind (none, each member role, each token scope, keys, the cron secret, bad ones).
import type { TestServer } from '../support/server.ts';
import type { Credential, FuzzTarget } from './fuzzer.ts';

export const CRON_SECRET = 'cron-secret-for-tests-0123456789';

export async function prepareTarget(s: TestServer): Promise<FuzzTarget> {
  const pub = await s.project('pub', 'public');
  await s.project('priv', 'private');
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const cookie = async (role: 'owner' | 'admin' | 'analyst' | 'viewer', projects: string[] | null = null) => ({
    cookie: (await s.member(role, projects)).cookie,
  });
  const credentials: Credential[] = [
    { name: 'none', headers: {} },
    { name: 'owner', headers: await cookie('owner') },
    { name: 'admin', headers: await cookie('admin', ['pub']) },
    { name: 'analyst', headers: await cookie('analyst', ['pub', 'priv']) },
    { name: 'viewer', headers: await cookie('viewer', ['priv']) },
    { name: 'read token', headers: bearer(await s.token('read')) },
    { name: 'admin token', headers: bearer(await s.token('admin', ['pub'])) },
    { name: 'sql token', headers: bearer(await s.token('sql')) },
    { name: 'secret key', headers: bearer(pub.secretKey) },
    { name: 'public key', headers: { 'x-project-key': pub.publicKey, origin: 'https://site.example' } },
    { name: 'cron', headers: bearer(CRON_SECRET) },
    { name: 'unknown token', headers: bearer('at_live_unknown') },
    { name: 'mangled cookie', headers: { cookie: 'loupe.session_token=%E0%A4%A' } },
    { name: 'bad authorization', headers: { authorization: 'Basic \u00ff' } },
  ];
  await s.request('POST', '/v2/ingest', {
    token: pub.secretKey,
    body: {
      events: [
        {
          id: 'f1',
          name: 'pageview',
          visitor: 'v1',
          page: { path: '/' },
          user: { traits: { email: 'a@example.com' } },
        },
        { id: 'f2', name: 'signup', visitor: 'v1', props: { plan: 'pro' } },
        { id: 'f3', name: 'error', visitor: 'v2', props: { message: 'boom', type: 'Error' } },
      ],
    },
  });
  return {
    url: s.url,
    credentials,
    pathValues: {
      project: ['pub', 'priv', 'nope'],
      dimension: ['page', 'country', 'trait:email', 'prop:plan', 'group:company', 'entry_page'],
      visitor: ['v1', 'v2'],
      job: ['retention', 'logs', 'sessions', 'salt', '__proto__'],
      token: ['tok_nope'],
    },
  };
}

// The credential cache: requests that arrive while a token is being looked up share that lookup (thousands
// of long-polls come back together when an entry expires), and a forget while it is under way is not
// undone by its answer.
import t from 'tap';
import { createCredentialResolver } from '../../src/auth/credentials.ts';
import type { TokenLookup } from '../../src/db/tokens.ts';
import { hashSecret } from '../../src/secrets.ts';

const TOKEN = 'at_live_test';
const row: TokenLookup = { id: 't1', name: 'x', scope: 'read', project_ids: null, expires_at: null, revoked_at: null };

function resolver() {
  let lookups = 0;
  let release: () => void = () => {};
  let revoked = false;
  const credentials = createCredentialResolver({
    findToken: async () => {
      lookups++;
      await new Promise<void>((r) => (release = r));
      return revoked ? { ...row, revoked_at: new Date() } : row;
    },
    findSession: async () => undefined,
    findSecretKeyProject: async () => undefined,
    findPublicKeyProject: () => undefined,
    cookiePrefix: 'loupe',
  });
  const resolve = () => credentials.resolve({ authorization: `Bearer ${TOKEN}` });
  return {
    credentials,
    resolve,
    lookups: () => lookups,
    release: () => release(),
    revoke: () => (revoked = true),
  };
}

t.test('requests during a lookup share it; the answer is cached', async (t) => {
  const r = resolver();
  const callers = Array.from({ length: 1_000 }, () => r.resolve());
  await new Promise((ok) => setImmediate(ok));
  r.release();
  const answered = await Promise.all(callers);
  t.equal(r.lookups(), 1, 'one lookup for 1,000 requests');
  t.ok(answered.every((c) => c.principal.kind === 'token'));
  await r.resolve();
  t.equal(r.lookups(), 1, 'then from the cache');
});

t.test('a forget during a lookup: later requests read afresh, and the old answer is not cached', async (t) => {
  const r = resolver();
  const before = r.resolve();
  await new Promise((ok) => setImmediate(ok));
  r.revoke();
  r.credentials.forget(hashSecret(TOKEN));
  const after = r.resolve();
  await new Promise((ok) => setImmediate(ok));
  t.equal(r.lookups(), 2, 'the request after the forget did not join the lookup before it');
  r.release(); // the second lookup's
  const refused = (await after.catch((err: unknown) => err)) as { status?: number };
  t.equal(refused.status, 401, 'revoked');
  t.equal(r.lookups(), 2);
  void before.catch(() => {}); // its lookup never finishes: its release was replaced
});

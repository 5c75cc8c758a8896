// Ingest rate limits by key kind: a public key's requests are limited per client IP (a site's visitors each
// have their own), while a secret key's, which a backend sends for all its visitors from one address, have
// their own bucket, by default far larger, set with INGEST_SECRET_RATE_PER_SECOND / INGEST_SECRET_RATE_BURST.
import t from 'tap';
import { loadConfig } from '../../src/config.ts';
import { startTestServer } from '../support/server.ts';

t.test('defaults: public 50/s with a burst of 200, secret 1000/s with a burst of 2000', async (t) => {
  const config = loadConfig({});
  t.same(config.ingestRate, { refillPerSecond: 50, capacity: 200 });
  t.same(config.ingestSecretRate, { refillPerSecond: 1000, capacity: 2000 });
  const set = loadConfig({ INGEST_SECRET_RATE_PER_SECOND: '20000', INGEST_SECRET_RATE_BURST: '40000' });
  t.same(set.ingestSecretRate, { refillPerSecond: 20000, capacity: 40000 });
  t.throws(() => loadConfig({ INGEST_SECRET_RATE_BURST: '0' }), /INGEST_SECRET_RATE_BURST/);
});

t.test('from one address: the secret key goes on past the public key burst', async (t) => {
  // The shipped defaults, but for a public burst small enough to pass quickly.
  const s = await startTestServer({ ingestRate: { capacity: 20, refillPerSecond: 0.001 } });
  t.teardown(() => s.close());
  const p = await s.project('backend');
  const send = (auth: Record<string, string>, i: number) =>
    fetch(`${s.url}/v2/ingest`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `e${i}`, name: 'signup' }),
    }).then((r) => r.status);
  const statuses = async (auth: Record<string, string>, from: number) => {
    const out: number[] = [];
    for (let i = 0; i < 60; i++) out.push(await send(auth, from + i));
    return out;
  };
  const secret = await statuses({ authorization: `Bearer ${p.secretKey}` }, 0);
  t.same(new Set(secret), new Set([202]), 'all 60 secret-key requests accepted');
  const pub = await statuses({ 'x-project-key': p.publicKey }, 100);
  t.equal(pub.filter((x) => x === 202).length, 20, 'the public key: its burst of 20 from this address');
  t.equal(pub.filter((x) => x === 429).length, 40, 'then 429');
});

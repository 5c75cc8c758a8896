// Secrets (at_live_ tokens, sk_ keys, session tokens) never appear in a list answer, a log line or
// the database in clear.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const logLines: string[] = [];
const s = await startTestServer({}, logLines);
t.teardown(() => s.close());
const owner = await s.member('owner');
const sessionValue = owner.cookie.split('=')[1]!;

t.test('secrets are shown once and stored hashed', async (t) => {
  const created = await s.request('POST', '/v2/projects', { ...owner, body: { id: 'shop', name: 'Shop' } });
  const secretKey: string = created.body.data.secretKey;
  const rotated = (await s.request('POST', '/v2/projects/shop/keys/rotate', owner)).body.data.secretKey as string;
  const token: string = (await s.request('POST', '/v2/tokens', { ...owner, body: { name: 'ci', scope: 'read' } })).body
    .data.token;
  t.match(token, /^at_live_[A-Za-z0-9]{32}$/);
  await s.request('GET', '/v2/projects', { token });
  await s.request('GET', '/v2/projects', { token: 'at_live_wrong0000000000000000000000000' });

  const lists = [
    (await s.request('GET', '/v2/tokens', owner)).text,
    (await s.request('GET', '/v2/projects', owner)).text,
    (await s.request('GET', '/v2/projects/shop', owner)).text,
  ].join('\n');
  const sql = s.loupe.services.sql;
  const dump = JSON.stringify([
    await sql`select * from api_tokens`,
    await sql`select * from projects`,
    await sql`select * from auth_sessions`,
  ]);
  for (const secret of [secretKey, rotated, token, sessionValue]) {
    t.notOk(lists.includes(secret), `${secret.slice(0, 8)}… not in list answers`);
    t.notOk(dump.includes(secret), `${secret.slice(0, 8)}… not in the database`);
    t.notOk(
      logLines.some((l) => l.includes(secret)),
      `${secret.slice(0, 8)}… not in a log line`,
    );
  }
  t.ok(
    logLines.some((l) => l.includes('"msg":"request"')),
    'access log lines were written',
  );
  const line = JSON.parse(logLines.find((l) => l.includes('"msg":"request"'))!);
  t.match(line, { level: 'info', method: String, path: String, status: Number, ms: Number, requestId: String });
});

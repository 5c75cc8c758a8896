// Who may run SQL: every credential kind against projects with sqlEnabled on and off (owners, admins and
// analysts listing the project, sql and admin tokens listing it; 404 / 401 / 403 as the spec's access
// rules say), and the log line each run leaves in the project's own stream.
import { createHash } from 'node:crypto';
import t from 'tap';
import { updateProject } from '../../src/db/projects.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
const on = await s.project('on');
await s.project('off');
await s.project('pubon', 'public');
await s.project('other');
for (const id of ['on', 'pubon', 'other']) await updateProject(s.loupe.services.sql, id, { sqlEnabled: true });
await s.loupe.services.projects.refresh();

const callers = {
  anonymous: {},
  owner: { cookie: (await s.member('owner')).cookie },
  adminAll: { cookie: (await s.member('admin')).cookie },
  adminListed: { cookie: (await s.member('admin', ['on', 'off', 'pubon'])).cookie },
  adminOther: { cookie: (await s.member('admin', ['other'])).cookie },
  analystListed: { cookie: (await s.member('analyst', ['on', 'off', 'pubon'])).cookie },
  analystOther: { cookie: (await s.member('analyst', ['other'])).cookie },
  viewerListed: { cookie: (await s.member('viewer', ['on', 'off', 'pubon'])).cookie },
  readAll: { token: await s.token('read') },
  readListed: { token: await s.token('read', ['on', 'off', 'pubon']) },
  sqlAll: { token: await s.token('sql') },
  sqlListed: { token: await s.token('sql', ['on', 'off', 'pubon']) },
  sqlOther: { token: await s.token('sql', ['other']) },
  sqlExpired: { token: await s.token('sql', null, new Date(Date.now() + 1500)) },
  adminTokenAll: { token: await s.token('admin') },
  adminTokenListed: { token: await s.token('admin', ['on', 'off', 'pubon']) },
  unknownToken: { token: 'at_live_nobodyknowsthisone0000000000' },
  cron: { token: 'cron-secret-for-tests-0123456789' },
  secretKey: { token: on.secretKey },
  publicKey: { headers: { 'x-project-key': on.publicKey } },
} as const;
type Name = keyof typeof callers;
const allowed: Name[] = [
  'owner',
  'adminAll',
  'adminListed',
  'analystListed',
  'sqlAll',
  'sqlListed',
  'adminTokenAll',
  'adminTokenListed',
];

const ask = (project: string, name: Name) =>
  s.request('POST', `/v2/projects/${project}/sql`, { ...callers[name], body: { query: 'select 1 as one' } });

await new Promise((r) => setTimeout(r, 1600)); // sqlExpired is past its expiry from here on

t.test('private project, sqlEnabled on', async (t) => {
  const expected: Record<Name, number> = {
    anonymous: 404,
    adminOther: 404,
    analystOther: 404,
    viewerListed: 403,
    readAll: 403,
    readListed: 403,
    sqlOther: 404,
    sqlExpired: 401,
    unknownToken: 401,
    cron: 404,
    secretKey: 404,
    publicKey: 404,
    ...(Object.fromEntries(allowed.map((n) => [n, 200])) as Record<string, number>),
  } as Record<Name, number>;
  for (const [name, status] of Object.entries(expected) as [Name, number][]) {
    const res = await ask('on', name);
    t.equal(res.status, status, `${name} → ${status} (${res.text.slice(0, 100)})`);
    if (status === 200)
      t.same(res.body, { data: [{ one: 1 }], columns: [{ name: 'one', type: 'integer' }], rowCount: 1 });
    else t.type(res.body?.error?.code, 'string');
  }
});

t.test('private project, sqlEnabled off: those who could run SQL get 403 saying so', async (t) => {
  for (const name of allowed) {
    const res = await ask('off', name);
    t.equal(res.status, 403, `${name} → 403`);
    t.match(res.body.error.message, /sqlEnabled/);
  }
  for (const [name, status] of [
    ['anonymous', 404],
    ['viewerListed', 403],
    ['readListed', 403],
    ['sqlOther', 404],
    ['cron', 404],
  ] as const)
    t.equal((await ask('off', name)).status, status, `${name} → ${status}`);
});

t.test('public project: readable by anyone, SQL still only for the rules above', async (t) => {
  for (const [name, status] of [
    ['anonymous', 401],
    ['viewerListed', 403],
    ['readListed', 403],
    ['sqlOther', 403],
    ['analystOther', 403],
    ['publicKey', 403],
    ['cron', 403],
    ['analystListed', 200],
    ['sqlListed', 200],
  ] as const)
    t.equal((await ask('pubon', name)).status, status, `${name} → ${status}`);
});

t.test("each run leaves a pipeline line in the project's own stream, without the query text", async (t) => {
  const query = "select 'needle-in-the-query' as marker";
  const ok = await s.request('POST', '/v2/projects/on/sql', { ...callers.analystListed, body: { query } });
  t.equal(ok.status, 200);
  const bad = await s.request('POST', '/v2/projects/on/sql', {
    ...callers.sqlListed,
    body: { query: 'select pg_sleep(1)' },
  });
  t.equal(bad.status, 400);
  type Line = { project_id: string; kind: string; level: string; message: string; data: any };
  const print = (q: string) => createHash('sha256').update(q).digest('hex').slice(0, 16);
  const find = async (q: string) => {
    for (let i = 0; i < 100; i++) {
      const [line] = await s.loupe.services.sql<Line[]>`
        select project_id, kind, level, message, data from logs where data->'sql'->>'fingerprint' = ${print(q)}`;
      if (line) return line;
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  };
  const good = await find(query);
  t.match(good, { project_id: 'on', kind: 'pipeline', level: 'info' }, 'the run is logged');
  t.match(good?.message, /^SQL query by analyst analyst-\d+@example\.com: 1 rows in \d+ ms$/);
  t.match(good?.data.sql, { by: /^analyst /, rows: 1, format: 'answer', error: null });
  t.ok(Number.isInteger(good?.data.sql.durationMs));
  const refused = await find('select pg_sleep(1)');
  t.match(refused, { project_id: 'on', level: 'warn' });
  t.match(refused?.data.sql, { by: /^token tok_/, error: 'SQL_REFUSED', rows: 0 });
  const all = await s.loupe.services.sql<{ project_id: string; text: string }[]>`
    select project_id, data::text || message as text from logs where message like 'SQL query%'`;
  t.ok(
    all.every((l) => l.project_id === 'on' || !l.text.includes('needle')),
    'no other stream mentions it',
  );
  t.notOk(
    all.some((l) => l.text.includes('needle-in-the-query')),
    'the text of the query is never logged',
  );
});

t.test('the OpenAPI document lists the analyst schema and the access rule', async (t) => {
  const doc = await s.request('GET', '/v2/openapi.json');
  const op = doc.body.paths['/v2/projects/{project}/sql'].post;
  for (const view of ['events', 'sessions', 'visitors', 'issues', 'speed_samples', 'annotations'])
    t.match(op.description, new RegExp(`\`${view}\``), `${view} listed`);
  t.match(op.description, /props jsonb/);
  t.match(op.description, /Access: Owner; admin or analyst listing the project; sql or admin token/);
  t.ok(op.requestBody, 'body schema');
});

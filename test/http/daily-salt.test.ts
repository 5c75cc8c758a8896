// The daily salt: a project setting (PATCH dailySalt, in the OpenAPI document) under which visitors without
// an SDK id are HMAC(salt, IP ‖ user agent) with a salt the salt job rotates each UTC day; the previous salt
// is kept 48 hours, so a session that spans the rotation keeps its visitor id.
import t from 'tap';
import { hashVisitor } from '../../src/ingest/visitor-hash.ts';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
const site = await s.project('site');
await s.project('steady');
const owner = await s.member('owner');
const cron = { token: 'cron-secret-for-tests-0123456789' };
const sql = s.loupe.services.sql;
const IP = '81.2.69.142';
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const salts = async (id: string) =>
  (
    await sql<{ salt: string; previous_salt: string | null; daily_salt: boolean }[]>`
    select salt, previous_salt, daily_salt from projects where id = ${id}`
  )[0]!;
const send = async (id: string, minutesAgo: number) => {
  const res = await s.request('POST', '/v2/ingest', {
    token: site.secretKey,
    body: {
      id,
      name: 'pageview',
      ts: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      page: { url: 'https://site.example/' },
      context: { ip: IP, userAgent: UA },
    },
  });
  if (res.status !== 202 || res.body.accepted !== 1) throw new Error(`ingest: ${res.status} ${res.text}`);
  const [row] = await sql<{ visitor_id: string; session_id: string }[]>`
    select visitor_id, session_id from events where project_id = 'site' and id = ${id}`;
  return row!;
};
const runSalt = async () => {
  const res = await s.request('POST', '/v2/admin/jobs/salt', cron);
  t.equal(res.status, 200);
  return res.body.data.summary ?? res.body.data;
};

t.test('the setting: PATCH dailySalt, shown to admins, documented in OpenAPI', async (t) => {
  const before = await salts('site');
  t.equal(before.daily_salt, false);
  const on = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { dailySalt: true } });
  t.equal(on.status, 200);
  t.equal(on.body.data.dailySalt, true);
  const after = await salts('site');
  t.not(after.salt, before.salt, 'turning it on rotates at once');
  t.equal(after.previous_salt, before.salt, 'and keeps the salt before');
  t.equal((await s.request('GET', '/v2/projects/site', owner)).body.data.dailySalt, true);
  const bad = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { dailySalt: 'yes' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.error.details[0].field, 'body.dailySalt');
  const doc = (await s.request('GET', '/v2/openapi.json')).body;
  const patch = doc.paths['/v2/projects/{project}'].patch;
  const schema = patch.requestBody.content['application/json'].schema;
  t.match(schema.properties.dailySalt, { type: 'boolean', description: /rotates daily/ });
});

t.test(
  'hashed ids follow the salt; a session spanning a rotation keeps its id; the next one takes the new',
  async (t) => {
    const first = await send('a1', 70);
    t.equal(first.visitor_id, hashVisitor((await salts('site')).salt, IP, UA), 'HMAC(salt, IP ‖ UA)');

    await sql`update projects set salt_rotated_at = now() - interval '1 day' where id = 'site'`;
    const current = (await salts('site')).salt;
    const ran = await runSalt();
    t.match(ran, { rotated: 1 }, 'the job rotates a daily-salt project once a day');
    const rotated = await salts('site');
    t.not(rotated.salt, current);
    t.equal(rotated.previous_salt, current, 'the previous salt is kept');
    t.match(await runSalt(), { rotated: 0 }, 'not twice the same day');
    t.equal((await salts('steady')).previous_salt, null, 'a project without the setting keeps its salt');

    const during = await send('a2', 60);
    t.equal(during.visitor_id, first.visitor_id, 'ten minutes later, across the rotation: the same visitor');
    t.equal(during.session_id, first.session_id, 'and the same session');
    const next = await send('a3', 0);
    t.equal(next.visitor_id, hashVisitor(rotated.salt, IP, UA), 'after an hour away: the new salt');
    t.not(next.session_id, first.session_id);
  },
);

t.test('the previous salt goes 48 hours after its rotation; turned off, the salt stays', async (t) => {
  const off = await s.request('PATCH', '/v2/projects/site', { ...owner, body: { dailySalt: false } });
  t.equal(off.body.data.dailySalt, false);
  const kept = await salts('site');
  await sql`update projects set salt_rotated_at = now() - interval '47 hours' where id = 'site'`;
  t.match(await runSalt(), { rotated: 0, previousDropped: 0 });
  await sql`update projects set salt_rotated_at = now() - interval '49 hours' where id = 'site'`;
  t.match(await runSalt(), { rotated: 0, previousDropped: 1 });
  const after = await salts('site');
  t.equal(after.previous_salt, null, 'forgotten');
  t.equal(after.salt, kept.salt, 'no rotation while the setting is off');
});

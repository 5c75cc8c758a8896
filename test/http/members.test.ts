// /v2/members: who may list and change members, the last-owner rule, and what a change does to sessions.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
await s.project('site');
const owner = await s.member('owner');
const admin = await s.member('admin', ['site']);
const analyst = await s.member('analyst', ['site']);
const adminToken = await s.token('admin');

t.test('listing: owners and admins; not analysts, viewers, tokens or strangers', async (t) => {
  const list = await s.request('GET', '/v2/members', owner);
  t.equal(list.status, 200);
  t.equal(list.body.data.length, 3);
  t.match(list.body.data[0], {
    id: /^usr_/,
    login: String,
    name: null,
    avatarUrl: null,
    role: String,
    createdAt: String,
    lastSeenAt: null,
  });
  t.same(list.body.data.map((m: { role: string; projectIds: unknown }) => [m.role, m.projectIds]).sort(), [
    ['admin', ['site']],
    ['analyst', ['site']],
    ['owner', null],
  ]);
  t.equal((await s.request('GET', '/v2/members', admin)).status, 200);
  t.equal((await s.request('GET', '/v2/members', analyst)).status, 403);
  t.equal((await s.request('GET', '/v2/members', { token: adminToken })).status, 403);
  t.equal((await s.request('GET', '/v2/members')).status, 401);
});

t.test('adding, changing and removing: an owner only', async (t) => {
  const body = { login: 'dana@example.com', role: 'viewer', projectIds: ['site'] };
  t.equal((await s.request('POST', '/v2/members', { ...admin, body })).status, 403, 'an admin cannot add');
  t.equal((await s.request('POST', '/v2/members', { token: adminToken, body })).status, 403);
  const added = await s.request('POST', '/v2/members', { ...owner, body });
  t.equal(added.status, 201);
  t.match(added.body.data, { login: 'dana@example.com', role: 'viewer', projectIds: ['site'] });
  const again = await s.request('POST', '/v2/members', { ...owner, body: { ...body, login: 'dana@example.com' } });
  t.equal(again.status, 409, 'a login that exists');
  const cased = await s.request('POST', '/v2/members', { ...owner, body: { ...body, login: 'DANA@example.com' } });
  t.equal(cased.status, 409, 'the same login in other case (sign-in matches without case)');
  const bad = await s.request('POST', '/v2/members', { ...owner, body: { login: 'a b', role: 'king' } });
  t.equal(bad.status, 400);
  t.same(bad.body.error.details.map((d: { field: string }) => d.field).sort(), ['body.login', 'body.role']);

  t.equal(
    (await s.request('PATCH', '/v2/members/dana@example.com', { ...admin, body: { role: 'admin' } })).status,
    403,
  );
  const changed = await s.request('PATCH', `/v2/members/${added.body.data.id}`, {
    ...owner,
    body: { role: 'analyst', projectIds: null, name: 'Dana' },
  });
  t.equal(changed.status, 200);
  t.match(changed.body.data, { role: 'analyst', projectIds: null, name: 'Dana' });
  t.equal((await s.request('PATCH', '/v2/members/DANA@example.com', { ...owner, body: {} })).status, 400, 'empty');
  t.equal((await s.request('PATCH', '/v2/members/nobody', { ...owner, body: { role: 'viewer' } })).status, 404);

  t.equal((await s.request('DELETE', '/v2/members/dana@example.com', admin)).status, 403);
  const removed = await s.request('DELETE', '/v2/members/dana@example.com', owner);
  t.same(removed.body, { data: { id: added.body.data.id, login: 'dana@example.com', removed: true } });
  t.equal((await s.request('DELETE', '/v2/members/dana@example.com', owner)).status, 404);
});

t.test('the last owner cannot be removed or demoted (409); with two, either can go', async (t) => {
  const [me] = (await s.request('GET', '/v2/members', owner)).body.data.filter(
    (m: { role: string }) => m.role === 'owner',
  );
  const demote = await s.request('PATCH', `/v2/members/${me.id}`, { ...owner, body: { role: 'admin' } });
  t.equal(demote.status, 409);
  t.equal(demote.body.error.code, 'CONFLICT');
  t.equal((await s.request('DELETE', `/v2/members/${me.id}`, owner)).status, 409);
  t.equal(
    (await s.request('PATCH', `/v2/members/${me.id}`, { ...owner, body: { name: 'Boss' } })).status,
    200,
    'a rename is fine',
  );

  const second = await s.request('POST', '/v2/members', { ...owner, body: { login: 'erin', role: 'owner' } });
  t.equal(second.status, 201);
  // Both owners demote each other at once: one goes through, the other is refused, one owner is left.
  const [a, b] = await Promise.all([
    s.request('PATCH', `/v2/members/${me.id}`, { ...owner, body: { role: 'admin' } }),
    s.request('PATCH', '/v2/members/erin', { ...owner, body: { role: 'admin' } }),
  ]);
  t.same([a.status, b.status].sort(), [200, 409], 'one of two concurrent demotions');
  const owners = (await s.loupe.services.sql`select login from dashboard_users where role = 'owner'`).length;
  t.equal(owners, 1, 'exactly one owner is left');
});

// A visitor's traits are identity values: breakdowns and filters by `trait:<key>` need detail access (or a
// public project with publicVisitorData), as the visitor list does; aggregates by other dimensions do not.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const s = await startTestServer();
t.teardown(() => s.close());
await s.project('site', 'public');
const owner = await s.member('owner');
const viewer = await s.member('viewer', ['site']);
const analyst = await s.member('analyst', ['site']);
const status = async (path: string, who: { cookie?: string } = {}) => (await s.request('GET', path, who)).status;

t.test('trait breakdowns and filters need detail access', async (t) => {
  for (const path of [
    '/v2/projects/site/breakdown/trait:email',
    '/v2/projects/site/breakdown/page?filter[trait:email]=a@example.com',
    '/v2/projects/site/stats?filter[trait:email]=a@example.com',
    '/v2/stats?filter[trait:email]=a@example.com',
  ]) {
    t.equal(await status(path), 401, `anonymous: ${path}`);
    t.equal(await status(path, viewer), 403, `a viewer: ${path}`);
    t.equal(await status(path, analyst), 200, `an analyst: ${path}`);
  }
  t.equal(await status('/v2/projects/site/breakdown/page'), 200, 'other dimensions stay public');
  t.equal(await status('/v2/projects/site/breakdown/prop:plan'), 200);
});

t.test('a public project with publicVisitorData shows them to anyone', async (t) => {
  await s.request('PATCH', '/v2/projects/site', { ...owner, body: { publicVisitorData: true } });
  await s.loupe.services.projects.refresh();
  t.equal(await status('/v2/projects/site/breakdown/trait:email'), 200);
  t.equal(await status('/v2/stats?filter[trait:email]=a@example.com'), 200);
});

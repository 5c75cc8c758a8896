// The OpenAPI document: valid OpenAPI 3.1, a success body for every route, the ingest request, the
// dimension and metric names, health and the live WebSocket; and real answers match the bodies it
// describes, members and all (an undocumented member fails as a wrong type does), sign-in's redirects too.
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import * as v from 'valibot';
import { buildOpenApi } from '../../src/routes/openapi.ts';
import { jsonSchema } from '../../src/routes/openapi-extras.ts';
import { allRoutes } from '../../src/routes/index.ts';
import type { Route } from '../../src/routes/route.ts';
import { seedProject } from '../../src/seed/index.ts';
import { startIdentityProvider } from '../support/identity-provider.ts';
import { startTestServer } from '../support/server.ts';
import { follow, hop, type Jar } from '../support/sign-in-client.ts';

type Json = Record<string, any>;
const routes = allRoutes();
const doc = buildOpenApi(routes, 'http://localhost:8080') as Json;

t.test('the document validates under OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
  t.same(result.errors ?? [], [], 'no schema errors');
  t.ok(result.valid);
  t.equal(validator.version, '3.1');
});

t.test('every route documents its success body', async (t) => {
  for (const r of routes) {
    const op = doc.paths[r.path][r.method.toLowerCase()];
    const success = op.responses[String(r.status ?? 200)];
    t.ok(r.response, `${r.method} ${r.path} declares a response`);
    t.ok(success?.content, `${r.method} ${r.path} has a success body`);
  }
});

t.test('ingest, dimensions, metrics, health and the WebSocket are described', async (t) => {
  const ingest = doc.paths['/v2/ingest'].post.requestBody.content['application/json'].schema;
  const batch = ingest.oneOf[0];
  t.equal(batch.properties.events.maxItems, 500);
  const event = batch.properties.events.items;
  t.same(event.required, ['name']);
  t.match(event.properties.name.description, /pageview.*error.*speed.*engagement/s);
  t.equal(event.properties.props.maxProperties, 25);
  t.ok(event.properties.vitals.properties.lcp, 'speed vitals');
  t.same(ingest.oneOf[1], event, 'one event alone');

  const breakdown = doc.paths['/v2/projects/{project}/breakdown/{dimension}'].get;
  const dimension = breakdown.parameters.find((p: Json) => p.name === 'dimension');
  t.ok(dimension.schema.anyOf[0].enum.includes('referrer_domain'));
  t.ok(dimension.schema.anyOf[1].pattern.startsWith('^(prop|trait|group)'));
  const metrics = breakdown.parameters.find((p: Json) => p.name === 'metrics');
  t.equal(metrics.schema.type, 'array');
  t.ok(metrics.schema.items.anyOf[0].enum.includes('bounce_rate'));
  const metric = doc.paths['/v2/timeseries'].get.parameters.find((p: Json) => p.name === 'metric');
  t.ok(metric.required);
  t.ok(metric.schema.anyOf[0].enum.includes('conversion_rate'));
  const filter = breakdown.parameters.find((p: Json) => p.name === 'filter');
  t.equal(filter.style, 'deepObject');

  const health = doc.paths['/v2/health'].get.responses['200'].content['application/json'].schema;
  t.same(health.required, ['status', 'startedAt', 'failingProjects']);
  const live = doc.paths['/v2/projects/{project}/live'].get;
  const messages = live.responses['101'].content['application/json'].schema.oneOf;
  t.same(
    messages.map((m: Json) => m.properties.type.const),
    ['hello', 'realtime', 'log'],
  );
  t.ok(doc.paths['/v2/projects/{project}/logs'].get.responses['200'].content['text/event-stream']);
  t.ok(doc.paths['/v2/projects/{project}/visitors'].get.responses['200'].content['text/csv']);
});

/** Paths of members a value has and its JSON Schema does not name (where it names its members). */
function undocumented(value: unknown, schema: Json, at = ''): string[] {
  if (!schema || typeof schema !== 'object') return [];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      const tries = schema[key].map((s: Json) => undocumented(value, s, at));
      return tries.find((x: string[]) => x.length === 0) ?? tries[0] ?? [];
    }
  }
  if (Array.isArray(value)) return value.flatMap((x, i) => undocumented(x, schema.items, `${at}[${i}]`));
  if (value === null || typeof value !== 'object' || !schema.properties) return [];
  const out: string[] = [];
  for (const [k, x] of Object.entries(value)) {
    const named = schema.properties[k];
    if (named) out.push(...undocumented(x, named, `${at}.${k}`));
    else if (!schema.additionalProperties) out.push(`${at}.${k}`);
  }
  return out;
}

t.test('real answers match the documented bodies', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const p = await s.project('shop');
  const admin = await s.token('admin');
  const cron = { token: 'cron-secret-for-tests-0123456789' };
  const browser = {
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    ip: '203.0.113.9',
  };
  const at = new Date().toISOString();
  const events = [
    { id: 'o1', name: 'pageview', ts: at, page: { url: 'https://shop.example/a', title: 'A' }, visitor: 'v1' },
    { id: 'o2', name: 'signup', ts: at, props: { plan: 'pro' }, visitor: 'v1', user: { id: 'u1', traits: { a: 1 } } },
    {
      id: 'o3',
      name: 'error',
      ts: at,
      visitor: 'v1',
      release: '1.0.0',
      page: { url: 'https://shop.example/a' },
      props: {
        message: 'boom',
        type: 'TypeError',
        level: 'error',
        stack: 'TypeError: boom\n    at handle (https://shop.example/app-0a1b2c3d.js:10:5)',
        breadcrumbs: `${Date.now()} navigation /a`,
      },
    },
    { id: 'o4', name: 'speed', ts: at, visitor: 'v1', vitals: { lcp: 1200, inp: 80, cls: 0.01, fcp: 800, ttfb: 90 } },
    { id: 'o5', name: 'x'.repeat(65), visitor: 'v1' },
  ].map((e) => ({ ...e, context: browser }));
  await seedProject(s.loupe.services.sql, {
    projectId: 'shop',
    events: 600,
    days: 5,
    embedded: !s.loupe.services.config.databaseUrl,
  });

  const byRoute = new Map<string, Route>(routes.map((r) => [`${r.method} ${r.path}`, r]));
  type As = string | { cookie: string };
  const check = async (method: string, template: string, path: string, body?: unknown, as: As = admin) => {
    const res = await s.request(method, path, typeof as === 'string' ? { token: as, body } : { ...as, body });
    const r = byRoute.get(`${method} ${template}`)!;
    t.ok(r?.response, `${method} ${template} is declared with a response`);
    const status = r.status ?? 200;
    t.equal(res.status, status, `${method} ${path} answers ${status}`);
    const parsed = v.safeParse(r.response!, res.body);
    t.ok(parsed.success, `${method} ${path} matches its schema`, {
      issues: parsed.issues?.map((i) => `${v.getDotPath(i)}: ${i.message}`),
    });
    t.same(undocumented(res.body, jsonSchema(r.response!)), [], `${method} ${path}: every member documented`);
    return res.body as Json;
  };

  const ingest = await check('POST', '/v2/ingest', '/v2/ingest', { events }, p.secretKey);
  t.equal(ingest.rejected.length, 1, 'the bad event is rejected on its own');
  const health = await check('GET', '/v2/health', '/v2/health');
  t.equal(health.status, 'ok');
  await check('GET', '/v2/auth/session', '/v2/auth/session');
  await check('GET', '/v2/projects', '/v2/projects');
  await check('GET', '/v2/projects/{project}', '/v2/projects/shop');
  for (const q of ['?traffic=all', '?traffic=all&filter[country]=!US']) {
    await check('GET', '/v2/projects/{project}/stats', `/v2/projects/shop/stats${q}`);
    await check('GET', '/v2/stats', `/v2/stats${q}`);
    await check(
      'GET',
      '/v2/projects/{project}/timeseries',
      `/v2/projects/shop/timeseries${q}&metric=visitors&compare=previous`,
    );
    await check('GET', '/v2/timeseries', `/v2/timeseries${q}&metric=avg:prop.amount`);
    await check('GET', '/v2/projects/{project}/retention', `/v2/projects/shop/retention${q}`);
    await check('GET', '/v2/breakdown/project', `/v2/breakdown/project${q}`);
  }
  const metrics =
    'visitors,pageviews,events,sessions,bounce_rate,session_duration,pages_per_session,time_on_page,scroll_depth';
  await check(
    'GET',
    '/v2/projects/{project}/breakdown/{dimension}',
    `/v2/projects/shop/breakdown/page?traffic=all&metrics=${metrics}`,
  );
  await check(
    'GET',
    '/v2/projects/{project}/breakdown/{dimension}',
    '/v2/projects/shop/breakdown/prop:plan?traffic=all',
  );
  await check('GET', '/v2/projects/{project}/overview', '/v2/projects/shop/overview');
  await check('GET', '/v2/projects/{project}/realtime', '/v2/projects/shop/realtime?include=visitors');
  await check('GET', '/v2/projects/{project}/realtime/visitors', '/v2/projects/shop/realtime/visitors');
  await check('GET', '/v2/projects/{project}/logs', '/v2/projects/shop/logs');
  await check('GET', '/v2/projects/{project}/visitors', '/v2/projects/shop/visitors?traffic=all');
  await check('GET', '/v2/projects/{project}/sessions', '/v2/projects/shop/sessions?traffic=all');
  const visitor = await check('GET', '/v2/projects/{project}/visitors/{visitor}', '/v2/projects/shop/visitors/v1');
  const session = visitor.data.recentSessions[0].id;
  await check(
    'GET',
    '/v2/projects/{project}/sessions/{session}/events',
    `/v2/projects/shop/sessions/${session}/events`,
  );
  const issues = await check('GET', '/v2/projects/{project}/issues', '/v2/projects/shop/issues');
  const issue = issues.data[0]?.id;
  t.ok(issue, 'the error opened an issue');
  await check('GET', '/v2/projects/{project}/issues/{issue}/events', `/v2/projects/shop/issues/${issue}/events`);
  await check('PATCH', '/v2/projects/{project}/issues/{issue}', `/v2/projects/shop/issues/${issue}`, {
    status: 'resolved',
  });
  const ann = await check('POST', '/v2/projects/{project}/annotations', '/v2/projects/shop/annotations', {
    title: 'Deploy',
    date: at,
    kind: 'release',
  });
  await check('GET', '/v2/projects/{project}/annotations', '/v2/projects/shop/annotations?period=7d');
  await check(
    'PATCH',
    '/v2/projects/{project}/annotations/{annotation}',
    `/v2/projects/shop/annotations/${ann.data.id}`,
    { note: 'n' },
  );
  await check(
    'DELETE',
    '/v2/projects/{project}/annotations/{annotation}',
    `/v2/projects/shop/annotations/${ann.data.id}`,
  );
  await check('PATCH', '/v2/projects/{project}/visitors/{visitor}', '/v2/projects/shop/visitors/v1', {
    isInternal: true,
  });
  const token = await check('POST', '/v2/tokens', '/v2/tokens', { name: 'ci', scope: 'read' });
  await check('GET', '/v2/tokens', '/v2/tokens');
  await check('DELETE', '/v2/tokens/{token}', `/v2/tokens/${token.data.id}`);
  for (const q of ['', '?device=desktop&percentile=90&filter[route]=!/checkout']) {
    const speed = await check('GET', '/v2/projects/{project}/speed', `/v2/projects/shop/speed${q}`);
    t.ok(speed.data.metrics.lcp.samples > 0, `speed${q} reads the samples`);
    await check('GET', '/v2/speed', `/v2/speed${q}`);
    const byRoute = await check('GET', '/v2/projects/{project}/speed/routes', `/v2/projects/shop/speed/routes${q}`);
    t.ok(byRoute.data.length > 0, `speed/routes${q} has rows`);
    const across = await check('GET', '/v2/speed/routes', `/v2/speed/routes${q}`);
    t.equal(across.data[0]?.project, 'shop', `speed/routes${q} across projects names the project`);
    const series = `/v2/projects/shop/speed/timeseries?metric=lcp${q.replace('?', '&')}`;
    await check('GET', '/v2/projects/{project}/speed/timeseries', series);
  }
  await check('GET', '/v2/projects/{project}/speed/routes', '/v2/projects/shop/speed/routes?group=path&minShare=0');
  const hourly = '/v2/projects/shop/speed/timeseries?metric=cls&interval=hour&period=24h';
  await check('GET', '/v2/projects/{project}/speed/timeseries', hourly);
  for (const metric of ['lcp', 'inp', 'cls', 'ttfb']) {
    const elements = `/v2/projects/shop/speed/elements?metric=${metric}`;
    const answer = await check('GET', '/v2/projects/{project}/speed/elements', elements);
    t.equal(
      answer.data.length > 0,
      metric !== 'ttfb',
      `speed/elements?metric=${metric}: rows where elements are named`,
    );
  }
  const owner = await s.member('owner');
  await check('GET', '/v2/auth/session', '/v2/auth/session', undefined, owner);
  const member = await check('POST', '/v2/members', '/v2/members', { login: 'ana', role: 'analyst' }, owner);
  await check('PATCH', '/v2/members/{member}', `/v2/members/${member.data.id}`, { projectIds: ['shop'] }, owner);
  await check('GET', '/v2/members', '/v2/members', undefined, owner);
  await check('DELETE', '/v2/members/{member}', '/v2/members/ana', undefined, owner);
  await check('POST', '/v2/projects', '/v2/projects', { name: 'Other', id: 'other' });
  await check('PATCH', '/v2/projects/{project}', '/v2/projects/other', { retentionDays: 90 });
  await check('POST', '/v2/projects/{project}/keys/rotate', '/v2/projects/other/keys/rotate');
  const gone = await s.request('DELETE', '/v2/projects/other', { cookie: owner.cookie });
  t.ok(v.is(byRoute.get('DELETE /v2/projects/{project}')!.response!, gone.body), 'project deletion');
  await check('GET', '/v2/admin/jobs', '/v2/admin/jobs', undefined, cron.token);
  await check('POST', '/v2/admin/jobs/{job}', '/v2/admin/jobs/logs', undefined, cron.token);
  await check('GET', '/v2/admin/jobs', '/v2/admin/jobs', undefined, cron.token);
  await check('GET', '/v2/openapi.json', '/v2/openapi.json');
  const out = await check('POST', '/v2/auth/signout', '/v2/auth/signout', undefined, owner);
  t.equal(out.signedOut, true, 'the session ended');
  t.equal((await check('POST', '/v2/auth/signout', '/v2/auth/signout')).signedOut, false, 'no session to end');
});

t.test('the sign-in redirects answer as documented', async (t) => {
  const idp = await startIdentityProvider();
  const s = await startTestServer({
    oidcIssuer: idp.issuer,
    oauthClientId: idp.clientId,
    oauthClientSecret: idp.clientSecret,
  });
  idp.register(`${s.url}/v2/auth/callback`);
  t.teardown(async () => {
    await s.close();
    await idp.close();
  });
  const owner = await s.member('owner');
  await s.request('POST', '/v2/members', { ...owner, body: { login: 'alice', role: 'viewer' } });
  idp.next = { login: 'alice', claims: { preferred_username: 'alice' } };
  const jar: Jar = new Map();
  const start = await hop(jar, `${s.url}/v2/auth/signin?redirect=/projects`);
  const back = await follow(jar, start.location!, `${s.url}/v2/auth/callback`);
  const done = await hop(jar, back.next!);
  for (const [path, answer] of [
    ['/v2/auth/signin', start],
    ['/v2/auth/callback', done],
  ] as const) {
    const r = routes.find((x) => x.method === 'GET' && x.path === path)!;
    const documented = doc.paths[path].get.responses[String(r.status)];
    t.equal(answer.status, r.status, `${path} answers ${r.status}`);
    t.ok(answer.location, `${path} names where to go`);
    t.ok(documented.headers.Location, `${path} documents its Location header`);
    t.ok(v.is(r.response!, answer.body === undefined ? '' : answer.body), `${path}: the documented empty body`);
  }
  t.equal(done.location, `${s.url}/projects`, 'signed in, back where sign-in began');
});

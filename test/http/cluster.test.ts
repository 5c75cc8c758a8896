// Two processes on one database and one Redis (DESIGN.md, data flow 5): a project's actor lives in the one
// that holds its lease; the other forwards its batches and realtime reads there, so a visitor whose
// requests reach both stays in one session and realtime counts them once; when the holder stops, the
// other takes the project over with its live sessions. Needs PostgreSQL and Redis (two processes cannot
// share an embedded PGlite): CI sets DATABASE_URL and REDIS_URL.
import t from 'tap';
import { startLoupe, type Loupe } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createProject } from '../../src/db/projects.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';

const redisUrl = process.env.REDIS_URL;
if (!process.env.DATABASE_URL || !redisUrl) {
  t.plan(0, 'needs DATABASE_URL and REDIS_URL: two processes share one PostgreSQL and one Redis');
} else {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const start = () =>
    startLoupe(
      loadConfig(
        { PORT: '0', HOST: '127.0.0.1', DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl!, REDIS_URL: redisUrl },
        {},
      ),
      createLogger('silent'),
    );
  const a = await start();
  const b = await start();
  const running = new Set<Loupe>([a, b]);
  t.teardown(async () => {
    for (const l of running) await l.close();
  });

  const created = await createProject(a.services.sql, { id: 'site', name: 'site', visibility: 'private' });
  const secretKey = created!.secretKey;
  const { token } = await createToken(a.services.sql, {
    name: 'reader',
    scope: 'admin',
    projectIds: null,
    expiresAt: null,
    createdBy: 'test',
  });
  await Promise.all([a.services.projects.refresh(), b.services.projects.refresh()]);

  const url = (l: Loupe) => `http://127.0.0.1:${l.port}`;
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const pageview = (id: string, visitor: string, path: string, minutesAgo: number) => ({
    id,
    name: 'pageview',
    visitor,
    ts: at(minutesAgo),
    page: { url: `https://shop.example.com${path}` },
    context: { ip: '81.2.69.160', userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' },
  });
  const send = async (l: Loupe, events: unknown[]) => {
    const res = await fetch(`${url(l)}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    return { status: res.status, body: await res.json() };
  };
  const read = async (l: Loupe, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${url(l)}/v2/projects/site${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    return { status: res.status, body: await res.json() };
  };
  const sessionsOf = async (visitor: string) =>
    (
      await b.services.sql<{ session_id: string }[]>`
    select distinct session_id from events where project_id = 'site' and visitor_id = ${visitor}`
    ).map((r) => r.session_id);

  t.test('one holder: the other process forwards batches and realtime reads to it', async (t) => {
    t.match(await send(a, [pageview('a1', 'walker', '/a', 4)]), { status: 202, body: { accepted: 1 } });
    t.same(
      [a.services.cluster.held(), b.services.cluster.held()],
      [['site'], []],
      'the first process to need the project holds it',
    );
    t.match(
      await send(b, [pageview('b1', 'walker', '/b', 3), pageview('b2', 'other', '/c', 2)]),
      { status: 202, body: { accepted: 2, duplicates: 0 } },
      'answered once committed by the holder',
    );
    t.match(
      await send(b, [pageview('b1', 'walker', '/b', 3)]),
      { status: 202, body: { accepted: 0, duplicates: 1 } },
      'a retry through the other process is a duplicate',
    );
    t.same(b.services.cluster.held(), [], 'the other process still holds nothing');
    t.equal(
      (await sessionsOf('walker')).length,
      1,
      'a visitor whose requests reach both processes stays in one session',
    );

    const viaB = await read(b, '/realtime?include=visitors');
    t.match(
      viaB.body.data,
      {
        visitors: 2,
        pages: [
          { value: '/a', visitors: 1 },
          { value: '/b', visitors: 1 },
          { value: '/c', visitors: 1 },
        ],
      },
      "realtime read through the other process: the holder's",
    );
    t.same(
      viaB.body.visitors.map((v: { visitor: string }) => v.visitor),
      ['other', 'walker'],
    );
    const overview = await read(b, '/overview');
    t.equal(overview.body.data.online, 2, "and the overview's online");
    t.equal(
      overview.body.data.viewsPerMinute.reduce((x: number, y: number) => x + y, 0),
      3,
    );

    const patched = await read(b, '/visitors/other', { method: 'PATCH', body: JSON.stringify({ isInternal: true }) });
    t.match(
      patched,
      { status: 200, body: { data: { eventsUpdated: 1, sessionsUpdated: 1 } } },
      'the holder applied its sessions and visitors before the change',
    );
    t.equal(
      (await read(a, '/realtime')).body.data.visitors,
      1,
      "a visitor marked internal through the other process leaves the holder's realtime",
    );
    const internalOf = async (id: string) =>
      (
        await b.services.sql<{ is_internal: boolean }[]>`
      select is_internal from events where project_id = 'site' and id = ${id}`
      )[0]?.is_internal;
    await send(b, [pageview('o2', 'other', '/e', 1)]);
    t.equal(
      await internalOf('o2'),
      true,
      'their later event, sent through the other process, is internal: the holder was told',
    );
    t.match(await read(b, '/visitors/other', { method: 'PATCH', body: JSON.stringify({ isInternal: false }) }), {
      status: 200,
    });
    await send(b, [pageview('o3', 'other', '/f', 0)]);
    t.same(
      [await internalOf('o2'), await internalOf('o3')],
      [false, false],
      'unmarked through the other process: human again, later events too',
    );
    t.match(
      await read(b, '/visitors/other', { method: 'PATCH', body: JSON.stringify({ isInternal: true }) }),
      { status: 200 },
      'and internal again',
    );
  });

  t.test('the holder stops: the other process takes the project over, live sessions included', async (t) => {
    await a.close();
    running.delete(a);
    t.match(await send(b, [pageview('b3', 'walker', '/d', 1)]), { status: 202, body: { accepted: 1 } });
    t.same(b.services.cluster.held(), ['site'], 'the lease went with the stopped holder, and the other took it');
    t.equal((await sessionsOf('walker')).length, 1, 'the visitor goes on in the session the stopped holder kept');
    const realtime = await read(b, '/realtime');
    t.equal(realtime.body.data.visitors, 1, 'realtime read back: the walker (the other visitor is internal now)');
  });

  t.test(
    'rate limits: the processes of a deployment share a bucket; another deployment on the same Redis has its own',
    async (t) => {
      // A secret key's bucket is the project id and the client's address: 'site' and 127.0.0.1 in both deployments.
      const deployment = async () => {
        const other = await createTestDatabase();
        t.teardown(() => other.drop());
        const config = loadConfig(
          {
            PORT: '0',
            HOST: '127.0.0.1',
            DATA_DIR: other.dataDir,
            DATABASE_URL: other.databaseUrl!,
            REDIS_URL: redisUrl,
          },
          { ingestSecretRate: { capacity: 2, refillPerSecond: 0.001 } },
        );
        const first = await startLoupe(config, createLogger('silent'));
        const second = await startLoupe(config, createLogger('silent'));
        t.teardown(async () => {
          await first.close();
          await second.close();
        });
        const { secretKey } = (await createProject(first.services.sql, {
          id: 'site',
          name: 'site',
          visibility: 'private',
        }))!;
        await Promise.all([first.services.projects.refresh(), second.services.projects.refresh()]);
        const status = async (l: Loupe, id: string) =>
          (
            await fetch(`${url(l)}/v2/ingest`, {
              method: 'POST',
              headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
              body: JSON.stringify({ id, name: 'pageview', visitor: 'v', context: { ip: '81.2.69.160' } }),
            })
          ).status;
        return { first, second, status };
      };
      const one = await deployment();
      const two = await deployment();
      t.same(
        [await one.status(one.first, 'r1'), await one.status(one.second, 'r2'), await one.status(one.first, 'r3')],
        [202, 202, 429],
        'two tokens between both processes, the third request refused',
      );
      t.same(
        [await two.status(two.first, 'r1'), await two.status(two.second, 'r2')],
        [202, 202],
        "the other deployment's bucket is full",
      );
      t.equal(await two.status(two.second, 'r3'), 429, 'and its own');
    },
  );
}

// Two processes on one database and one Redis: a credential dropped in one (a sign-out, a removed member,
// a revoked token) stops working in the other at once, not when its 10-second cache runs out. Needs
// PostgreSQL and Redis (two processes cannot share an embedded PGlite): CI sets DATABASE_URL and REDIS_URL.
import t from 'tap';
import { startLoupe, type Loupe } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { addMember, startSession } from '../../src/db/members.ts';
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
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const sql = a.services.sql;
  const call = async (l: Loupe, method: string, path: string, headers: Record<string, string>) => {
    const res = await fetch(`http://127.0.0.1:${l.port}${path}`, { method, headers });
    return { status: res.status, body: await res.json() };
  };
  const owner = await addMember(sql, { login: 'owner', role: 'owner', projectIds: null });
  const ownerCookie = `loupe.session_token=${(await startSession(sql, owner.id)).token}`;
  const until = async (check: () => Promise<boolean>) => {
    // Pub/sub is asynchronous: the other process hears within milliseconds, far inside the cache's 10 s.
    const deadline = Date.now() + 2_000;
    while (!(await check())) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  };

  t.test('a removed member and a sign-out end in the other process at once', async (t) => {
    const analyst = await addMember(sql, { login: 'ana', role: 'analyst', projectIds: null });
    const cookie = `loupe.session_token=${(await startSession(sql, analyst.id)).token}`;
    t.equal((await call(b, 'GET', '/v2/auth/session', { cookie })).body.role, 'analyst', 'cached in B');
    t.equal((await call(a, 'DELETE', '/v2/members/ana', { cookie: ownerCookie })).status, 200, 'removed in A');
    t.ok(
      await until(async () => (await call(b, 'GET', '/v2/auth/session', { cookie })).body.user === null),
      'B has forgotten the session',
    );

    const viewer = await addMember(sql, { login: 'vic', role: 'viewer', projectIds: ['x'] });
    const own = `loupe.session_token=${(await startSession(sql, viewer.id)).token}`;
    t.equal((await call(b, 'GET', '/v2/auth/session', { cookie: own })).body.role, 'viewer');
    t.equal((await call(a, 'POST', '/v2/auth/signout', { cookie: own })).status, 200);
    t.ok(await until(async () => (await call(b, 'GET', '/v2/auth/session', { cookie: own })).body.user === null));
  });

  t.test('a token revoked in one process is refused by the other at once', async (t) => {
    const { row, token } = await createToken(sql, {
      name: 'x',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'test',
    });
    const auth = { authorization: `Bearer ${token}` };
    t.equal((await call(b, 'GET', '/v2/projects', auth)).status, 200);
    t.equal((await call(a, 'DELETE', `/v2/tokens/${row.id}`, { cookie: ownerCookie })).status, 200);
    t.ok(await until(async () => (await call(b, 'GET', '/v2/projects', auth)).status === 401));
  });
}

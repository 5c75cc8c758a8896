// A restart neither splits sessions nor empties realtime: the server process is stopped (SIGTERM, or SIGKILL
// while it holds its sessions in memory) and started again; a visitor's next event within 30 minutes joins
// the session they were in, also for visitors without a client session id (the server SDK's, or an IP + user
// agent hash), and realtime counts who was active before the restart.
// Runs on Postgres with DATABASE_URL, else on embedded PGlite under DATA_DIR.
import t from 'tap';
import WebSocket from 'ws';
import { openDatabase } from '../../src/db/client.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess, type ServerEnv } from '../support/process.ts';

const MIN = 60_000;
const ua =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  t.test(`stopped by ${signal}: live sessions go on after the restart`, async (t) => {
    const db = await createTestDatabase();
    t.teardown(() => db.drop());
    // Checkpoints once a minute: the killed process dies holding every session in memory, and the restarted
    // one reads them back only after applying its journal.
    const env: ServerEnv = { databaseUrl: db.databaseUrl, dataDir: db.dataDir, extra: { CHECKPOINT_MS: '60000' } };
    const project = await prepareProject(env, 'site');
    const setup = await openDatabase({
      databaseUrl: env.databaseUrl,
      dataDir: env.dataDir,
      log: createLogger('silent'),
      max: 1,
    });
    const { token } = await createToken(setup.sql, {
      name: 'reader',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'test',
    });
    await setup.close();
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * MIN).toISOString();
    const pageview = (id: string, path: string, minutesAgo: number, visitor?: string) => ({
      id,
      name: 'pageview',
      ts: at(minutesAgo),
      ...(visitor ? { visitor } : {}),
      page: { url: `https://shop.example.com${path}` },
      context: { ip: '81.2.69.160', userAgent: ua },
    });
    const send = async (url: string, events: unknown[]) => {
      const res = await fetch(`${url}/v2/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      });
      t.equal(res.status, 202);
      t.match(await res.json(), { accepted: events.length });
    };

    const first = await startServerProcess(env);
    await send(first.url, [
      pageview('r1', '/a', 10, 'reader'),
      pageview('r2', '/b', 3, 'reader'),
      pageview('h1', '/home', 4), // no visitor id: the hash of IP and user agent
      pageview('g1', '/x', 50, 'gone'),
    ]);
    await first.kill(signal);
    await first.exited;

    const second = await startServerProcess(env);
    // The live WebSocket first: its first snapshot is the first thing to read the restarted actor.
    const ws = new WebSocket(`${second.url.replace('http', 'ws')}/v2/projects/site/live`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const snapshot = await new Promise<any>((resolve, reject) => {
      ws.on('message', (m) => {
        const message = JSON.parse(String(m));
        if (message.type === 'realtime') resolve(message);
      });
      ws.on('error', reject);
    });
    ws.close();
    t.equal(snapshot.data.visitors, 2, "the live WebSocket's first snapshot counts them too");
    const res = await fetch(`${second.url}/v2/projects/site/realtime`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { data } = await res.json();
    t.match(
      data,
      {
        visitors: 2,
        pages: [
          { value: '/b', visitors: 1 },
          { value: '/home', visitors: 1 },
        ],
      },
      'realtime after the restart: the two visitors active in the last five minutes, on their pages',
    );
    await send(second.url, [
      pageview('r3', '/c', 1, 'reader'),
      pageview('h2', '/cart', 1),
      pageview('g2', '/y', 2, 'gone'),
    ]);
    await second.kill('SIGTERM');
    await second.exited;

    const check = await openDatabase({
      databaseUrl: env.databaseUrl,
      dataDir: env.dataDir,
      log: createLogger('silent'),
      max: 1,
    });
    t.teardown(() => check.close());
    const events = await check.sql<{ id: string; session_id: string }[]>`
      select id, session_id from events where project_id = ${project.id} order by id`;
    const session = Object.fromEntries(events.map((e) => [e.id, e.session_id]));
    t.equal(session.r3, session.r1, 'the reader goes on in their session');
    t.equal(session.r2, session.r1);
    t.equal(session.h2, session.h1, 'so does a visitor known by IP and user agent');
    t.not(session.g2, session.g1, 'a visitor back after 48 minutes starts a new one');
    const [reader] = await check.sql`
      select pageviews, events, entry_page, exit_page, started_at, last_activity from sessions where project_id = ${project.id} and id = ${session.r1!}`;
    t.match(
      reader,
      { pageviews: 3, events: 0, entry_page: '/a', exit_page: '/c' },
      'one session row with all three pageviews',
    );
    t.equal(reader!.started_at.toISOString(), at(10));
    t.equal(reader!.last_activity.toISOString(), at(1));
    const [{ n }] = await check.sql<
      [{ n: number }]
    >`select count(*)::int as n from sessions where project_id = ${project.id}`;
    t.equal(n, 4, "four sessions: the reader's, the hashed visitor's and two of the one who came back");
  });
}

// One project's bad rows never stop another: while a project's checkpoints fail (a trigger refuses its
// visitors, as a row past a PostgreSQL limit would), the others' checkpoints, reads and jobs go on, the
// failing project is logged with its id and counted in /v2/health, and it recovers once it can be stored.
import t from 'tap';
import { startTestServer } from '../support/server.ts';

const lines: string[] = [];
const s = await startTestServer({ checkpointMs: 20, ingestRate: { capacity: 1000, refillPerSecond: 1000 } }, lines);
t.teardown(() => s.close());
const good = await s.project('good', 'public');
const bad = await s.project('bad', 'public');
const sql = s.loupe.services.sql;
const cron = 'cron-secret-for-tests-0123456789';
const send = (key: string, id: string) =>
  s.request('POST', '/v2/ingest', {
    token: key,
    body: { id, name: 'pageview', visitor: `v-${id}`, page: { path: '/' } },
  });
const visitors = async (projectId: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from visitors where project_id = ${projectId}`)[0]!.n;
const until = async (what: () => Promise<boolean>, ms = 10_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25)))
    if (await what()) return true;
  return false;
};

t.test('a project whose checkpoints keep failing is reported; the others go on', async (t) => {
  await sql`create function refuse_bad() returns trigger language plpgsql as $$
    begin raise exception 'this row cannot be stored'; end $$`;
  await sql`create trigger refuse_bad before insert or update on visitors for each row
    when (new.project_id = 'bad') execute function refuse_bad()`;
  for (let i = 0; i < 3; i++) {
    t.equal((await send(bad.secretKey, `b${i}`)).status, 202, 'events are still accepted and stored');
    t.equal((await send(good.secretKey, `g${i}`)).status, 202);
  }
  t.ok(await until(async () => (await visitors('good')) === 3), "good's checkpoints apply its visitors");
  t.ok(
    await until(async () => (await s.request('GET', '/v2/health')).body.failingProjects === 1),
    '/v2/health counts the failing project',
  );
  t.ok(
    lines.some((l) => l.includes('a project keeps failing') && l.includes('"projectId":"bad"')),
    'an error line names it',
  );
  t.equal((await s.request('GET', '/v2/projects/good/stats')).status, 200, "good's reads answer");
  const job = await s.request('POST', '/v2/admin/jobs/retention', { token: cron });
  t.equal(job.status, 200, 'jobs run');
  t.equal(job.body.data.ok, true);

  await sql`drop trigger refuse_bad on visitors`;
  t.ok(await until(async () => (await visitors('bad')) === 3), "bad's kept deltas are applied once it can be stored");
  t.ok(
    await until(async () => (await s.request('GET', '/v2/health')).body.failingProjects === 0),
    'and it is no longer counted',
  );
});

t.test('a job is looked up by its own name only', async (t) => {
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const res = await s.request('POST', `/v2/admin/jobs/${name}`, { token: cron });
    t.equal(res.status, 404, name);
  }
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from job_runs where job in ('__proto__', 'constructor', 'toString')`;
  t.equal(row!.n, 0, 'no run is recorded');
});

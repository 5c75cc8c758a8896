// Crash safety of ingest: the real server in a child process is SIGKILLed while batches are in flight.
// Every event whose request got a 202 must be stored exactly once after a restart, and batches that got
// no answer, retried like a client would, must be stored once too (a retry is a duplicate, never a double).
// The killed process checkpoints only once a minute, so it dies holding every session and visitor delta
// in memory: the restarted one must apply them from the journal, each exactly once.
// Runs on Postgres with DATABASE_URL, else on embedded PGlite under DATA_DIR.
import t from 'tap';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess, type ServerProcess } from '../support/process.ts';

const BATCH = 25;
const BATCHES = 2_000; // an upper bound: the kill comes long before
const IN_FLIGHT = 8;
const KILL_AFTER_ACKS = 40;
const KILL_AFTER_MS = 6_000;
const KILLS = 3; // at most, until a kill finds batches in flight

type Answer = { accepted: number; duplicates: number; rejected: unknown[] };

const db = await createTestDatabase();
t.teardown(() => db.drop());
const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
const project = await prepareProject(env, 'crash');
const started: ServerProcess[] = [];
t.teardown(async () => {
  for (const s of started) await s.kill('SIGKILL');
});

const ua =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const batchIds = (b: number) => Array.from({ length: BATCH }, (_, i) => `crash-${b}-${i}`);
const body = (b: number) =>
  JSON.stringify({
    events: batchIds(b).map((id, i) => ({
      id,
      name: i % 5 === 0 ? 'signup' : 'pageview',
      visitor: `v${(b * 7 + i) % 300}`,
      page: { url: `https://shop.example.com/p/${b}/${i}?utm_source=news`, referrer: 'https://www.google.com/' },
      props: i % 5 === 0 ? { plan: 'pro', seats: i } : undefined,
      context: { ip: `81.2.${b % 250}.${i + 1}`, userAgent: ua },
    })),
  });

async function send(url: string, b: number): Promise<Answer | null> {
  try {
    const res = await fetch(`${url}/v2/ingest`, {
      method: 'POST',
      body: body(b),
      signal: AbortSignal.timeout(5_000),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${project.secretKey}` },
    });
    if (res.status !== 202) return null;
    return (await res.json()) as Answer;
  } catch {
    return null; // connection reset by the kill, or a timeout: no answer
  }
}

t.test('no acknowledged event is lost or doubled across kill -9 and client retries', async (t) => {
  const acked = new Map<number, Answer>();
  const unanswered = new Set<number>();
  let next = 0;
  const t0 = Date.now();

  // One kill of a server under load. A group commit answers every batch it holds at once, so a kill can
  // land just after those answers were written and before the workers sent more: nothing is in flight
  // and the retry path goes untested. Such a kill is repeated (on the same database, with new batches).
  const killUnderLoad = async () => {
    const server = await startServerProcess({ ...env, extra: { CHECKPOINT_MS: '60000' } });
    started.push(server);
    const ackedBefore = acked.size;
    let killed = false;
    const worker = async () => {
      while (!killed && next < BATCHES) {
        const b = next++;
        const answer = await send(server.url, b);
        if (answer) acked.set(b, answer);
        else unanswered.add(b);
      }
    };
    const killer = (async () => {
      const began = Date.now();
      while (acked.size - ackedBefore < KILL_AFTER_ACKS && Date.now() - began < KILL_AFTER_MS)
        await new Promise((r) => setTimeout(r, 5));
      killed = true;
      server.child.kill('SIGKILL');
      await server.exited;
    })();
    await Promise.all([killer, ...Array.from({ length: IN_FLIGHT }, worker)]);
  };
  for (let kill = 1; kill <= KILLS; kill++) {
    await killUnderLoad();
    if (unanswered.size > 0) break;
    t.comment(`kill ${kill} found no batch in flight (${acked.size} acknowledged); killing another server`);
  }
  t.ok(acked.size >= 1, `${acked.size} batches acknowledged before the kill`);
  t.ok(unanswered.size >= 1, `${unanswered.size} batches in flight when killed`);
  for (const [b, a] of acked) {
    if (a.accepted !== BATCH || a.duplicates !== 0 || a.rejected.length !== 0)
      t.fail(`batch ${b} answered ${JSON.stringify(a)}`);
  }

  t.comment(`killed after ${Date.now() - t0} ms; restarting`);
  const second = await startServerProcess(env);
  started.push(second);
  t.comment(`restarted after ${Date.now() - t0} ms`);
  const retried = new Map<number, Answer>();
  for (const b of unanswered) {
    for (let attempt = 0; attempt < 5 && !retried.has(b); attempt++) {
      const a = await send(second.url, b);
      if (a) retried.set(b, a);
    }
  }
  t.equal(retried.size, unanswered.size, 'every unanswered batch is accepted on retry');
  let retryDuplicates = 0;
  for (const [b, a] of retried) {
    retryDuplicates += a.duplicates;
    if (a.accepted + a.duplicates !== BATCH) t.fail(`retry of batch ${b} answered ${JSON.stringify(a)}`);
  }
  t.comment(
    `${unanswered.size} batches retried; ${retryDuplicates} of their events had been committed before the kill`,
  );
  await second.kill('SIGTERM');
  t.comment(`retried and stopped after ${Date.now() - t0} ms`);

  const check = await openDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  t.teardown(() => check.close());
  const sql = check.sql;
  const doubled = await sql<{ id: string; n: number }[]>`
    select id, count(*)::int as n from events where project_id = ${project.id} group by id having count(*) > 1`;
  t.same(doubled, [], 'no event stored twice');
  const stored = new Set(
    (await sql<{ id: string }[]>`select id from events where project_id = ${project.id}`).map((r) => r.id),
  );
  const missingAcked = [...acked.keys()].flatMap(batchIds).filter((id) => !stored.has(id));
  t.same(missingAcked.slice(0, 10), [], `every acknowledged event is stored (${missingAcked.length} missing)`);
  const missingRetried = [...retried.keys()].flatMap(batchIds).filter((id) => !stored.has(id));
  t.same(missingRetried.slice(0, 10), [], `every retried event is stored (${missingRetried.length} missing)`);
  t.equal(stored.size, (acked.size + retried.size) * BATCH, 'nothing else is stored');
  const [dedup] = await sql<
    { n: number }[]
  >`select count(*)::int as n from ingest_dedup where project_id = ${project.id}`;
  t.equal(dedup!.n, stored.size, 'de-duplication keys and events were committed together');
  const [pv] = await sql<
    { n: number }[]
  >`select coalesce(sum(pageviews), 0)::int as n from sessions where project_id = ${project.id}`;
  t.equal(pv!.n, ((acked.size + retried.size) * BATCH * 4) / 5, 'session pageviews count each pageview once');
  const [journal] = await sql<{ n: number }[]>`select count(*)::int as n from fold_journal`;
  t.equal(journal!.n, 0, 'the journal is empty: every delta was applied');
  const sessionsOff = await sql`
    with truth as (
      select session_id, visitor_id, min(ts) as started_at, max(ts) as last_activity,
        count(*) filter (where name = 'pageview')::int as pageviews, count(*) filter (where name = 'signup')::int as events
      from events where project_id = ${project.id} group by session_id, visitor_id
    )
    select t.session_id from truth t full join (select * from sessions where project_id = ${project.id}) s on s.id = t.session_id
    where s.id is null or t.session_id is null or (s.visitor_id, s.started_at, s.last_activity, s.pageviews, s.events)
      is distinct from (t.visitor_id, t.started_at, t.last_activity, t.pageviews, t.events)`;
  t.same(sessionsOff.slice(0, 5), [], `every session agrees with its events (${sessionsOff.length} differ)`);
  const visitorsOff = await sql`
    with truth as (select visitor_id, min(ts) as first_seen, max(ts) as last_seen from events where project_id = ${project.id} group by visitor_id)
    select t.visitor_id from truth t full join (select * from visitors where project_id = ${project.id}) v on v.id = t.visitor_id
    where v.id is null or t.visitor_id is null or (v.first_seen, v.last_seen) is distinct from (t.first_seen, t.last_seen)`;
  t.same(visitorsOff.slice(0, 5), [], `every visitor agrees with their events (${visitorsOff.length} differ)`);
  const [bare] = await sql<
    { n: number }[]
  >`select count(*)::int as n from visitors where project_id = ${project.id} and bot_signals = '{}'`;
  t.equal(bare!.n, 0, 'visitor facts that events do not keep (bot signals) came back from the journal');
  t.comment(`${Date.now() - t0} ms`);
});

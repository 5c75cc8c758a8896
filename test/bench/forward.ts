// Forwarding between processes (src/cluster.ts): two server processes on one PostgreSQL and one Redis, the
// first holding the project. Batches of 50 events go to the holder, then to the other process, which
// forwards them through Redis; each turn prints events/s and the CPU each process spent an event.
// Both processes, PostgreSQL, Redis and the load share this machine, so read the CPU columns, not the rate.
// Needs DATABASE_URL and REDIS_URL.   npm run bench:forward   (BENCH_SECONDS: a turn's length, 6)
import { readFileSync } from 'node:fs';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess } from '../support/process.ts';
import { statFields, TICKS_PER_SECOND } from './cpu-meter.ts';
import { bodies, makeTemplates, makeVisitors } from './ingest-events.ts';

const redisUrl = process.env.REDIS_URL;
if (!process.env.DATABASE_URL || !redisUrl) throw new Error('bench:forward needs DATABASE_URL and REDIS_URL');
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 20;

const cpu = (pid: number) => {
  const f = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
};

const db = await createTestDatabase();
const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir, extra: { REDIS_URL: redisUrl } };
const project = await prepareProject(env, 'forward');
const holder = await startServerProcess(env);
const other = await startServerProcess(env);
try {
  const body = bodies(makeTemplates(50, 50, makeVisitors(2_000), { errors: 0 }), 'fw');
  const post = async (url: string) => {
    const res = await fetch(`${url}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
      body: body(),
    });
    return res.status === 202 ? ((await res.json()) as { accepted: number }).accepted : 0;
  };
  await post(holder.url); // the first process to need the project takes its lease
  const rows = [];
  for (const [sent, url] of [
    ['to the holder', holder.url],
    ['forwarded by the other', other.url],
  ] as const) {
    for (let turn = 0; turn < 2; turn++) {
      const before = [cpu(holder.child.pid!), cpu(other.child.pid!)];
      const started = Date.now();
      let events = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (Date.now() - started < seconds * 1000) {
            const accepted = await post(url);
            events += accepted;
          }
        }),
      );
      const elapsed = (Date.now() - started) / 1000;
      const [h, o] = [cpu(holder.child.pid!) - before[0]!, cpu(other.child.pid!) - before[1]!];
      rows.push({
        batches: sent,
        'events/s': Math.round(events / elapsed),
        'holder µs/ev': +((h / events) * 1e6).toFixed(1),
        'other µs/ev': +((o / events) * 1e6).toFixed(1),
      });
    }
  }
  console.log(
    `${CONNECTIONS} connections × 50-event batches, ${seconds} s a turn, two server processes on one machine`,
  );
  console.table(rows);
} finally {
  await holder.kill('SIGTERM');
  await other.kill('SIGTERM');
  await db.drop();
}

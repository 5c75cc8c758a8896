// `npm run bench:live`: live subscribers of one project on one server process (PostgreSQL) while ingest
// runs (a batch of 10 pageviews every 100 ms): 1,000, 5,000 and 10,000 SSE streams, WebSockets and
// long-polls of the log stream, each size on a fresh server. Prints, a run: delivery p50/p99 (from sending
// a batch to each subscriber seeing its batch line), the share of (subscriber, line) pairs delivered, ingest
// p99 beside a run without subscribers, the server's peak RSS, and database transactions a second
// (pg_stat_database's xact_commit over the ingest window). The load generator and subscribers run in this
// process, on the same cores as the server: compare runs of one invocation, not machines.
// BENCH_SECONDS (ingest window, 10), BENCH_SIZES (1000,5000,10000), BENCH_KINDS (sse,websocket,long-poll).
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { createToken } from '../../src/db/tokens.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess, type ServerProcess } from '../support/process.ts';
import { subscribe, type Kind, type Subscriber } from './live-subscribers.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const sizes = (process.env.BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const kinds = (process.env.BENCH_KINDS ?? 'sse,websocket,long-poll').split(',') as Kind[];
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.DATABASE_URL = databaseUrl; // createTestDatabase makes the bench's own database beside it
const BATCH_EVERY_MS = 100;
const GRACE_MS = 3_000; // after the last batch, for lines still on their way

const db = await createTestDatabase();
const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
const project = await prepareProject(env, 'live');
const token = await adminToken();
const stats = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const dbName = new URL(db.databaseUrl!).pathname.slice(1);

const rows: Record<string, string | number>[] = [];
try {
  const baseline = await run(null, 0);
  rows.push(row('none', 0, baseline, baseline.ingestP99));
  for (const kind of kinds)
    for (const size of sizes) {
      const r = await run(kind, size);
      rows.push(row(kind, size, r, baseline.ingestP99));
      console.table(rows.slice(-1));
    }
  console.log(`\nbench:live, ${seconds} s of ingest a run, a batch every ${BATCH_EVERY_MS} ms:`);
  console.table(rows);
} finally {
  await stats.end();
  await db.drop();
}

type Result = {
  delivery: number[];
  delivered: number;
  expected: number;
  ingestP99: number;
  rssMb: number;
  xactPerSecond: number;
  connectSeconds: number;
};

async function run(kind: Kind | null, size: number): Promise<Result> {
  const server = await startServerProcess(env, { nodeArgs: ['--max-old-space-size=2048'] });
  const runTag = Math.random().toString(36).slice(2, 8);
  const subscribers: Subscriber[] = [];
  try {
    const sentAt = new Map<number, number>();
    const delivery: number[] = [];
    let delivered = 0;
    const seen = (n: number, at: number) => {
      const sent = sentAt.get(n);
      if (sent === undefined) return; // a line of the warm-up
      delivered++;
      delivery.push(at - sent);
    };
    await ingest(server, runTag, -1); // the project's actor exists before anyone subscribes
    const connectStarted = performance.now();
    for (let i = 0; kind && i < size; i += 250) {
      const some = await Promise.all(
        Array.from({ length: Math.min(250, size - i) }, () =>
          subscribe(kind, { base: server.url, project: 'live', token, run: runTag }, seen),
        ),
      );
      subscribers.push(...some);
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    await new Promise((r) => setTimeout(r, 1_000));

    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(server))), 250);
    const xactBefore = await xactCommit();
    const started = performance.now();
    const ingestMs: number[] = [];
    const inFlight: Promise<void>[] = [];
    for (let n = 0; performance.now() - started < seconds * 1000; n++) {
      const due = started + n * BATCH_EVERY_MS;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      sentAt.set(n, performance.now());
      inFlight.push(ingest(server, runTag, n).then((ms) => void ingestMs.push(ms)));
    }
    await Promise.all(inFlight);
    const window = (performance.now() - started) / 1000;
    const xact = (await xactCommit()) - xactBefore;
    await new Promise((r) => setTimeout(r, GRACE_MS));
    clearInterval(sampler);
    peakRss = Math.max(peakRss, rssMb(server));
    return {
      delivery,
      delivered,
      expected: sentAt.size * size,
      ingestP99: percentile(ingestMs, 0.99),
      rssMb: peakRss,
      xactPerSecond: xact / window,
      connectSeconds,
    };
  } finally {
    for (const s of subscribers) s.close();
    await server.kill('SIGTERM');
  }
}

/** Sends batch `n` of run `run` (10 pageviews); answers how long its answer took, in ms. */
async function ingest(server: ServerProcess, run: string, n: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${server.url}/v2/ingest`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${project.secretKey}`,
      'content-type': 'application/json',
      'x-request-id': `bench-${run}-${n}`,
    },
    body: JSON.stringify({
      events: Array.from({ length: 10 }, (_, i) => ({
        id: `b${n}-${i}-${Math.random().toString(36).slice(2)}`,
        name: 'pageview',
        visitor: `v${(n * 10 + i) % 500}`,
        page: { url: `https://shop.example.com/p/${i}` },
        context: {
          ip: '81.2.69.160',
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
        },
      })),
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}`);
  return performance.now() - started;
}

function row(kind: string, size: number, r: Result, baselineP99: number) {
  return {
    subscribers: kind === 'none' ? 'none' : `${kind} ${size}`,
    'connect s': +r.connectSeconds.toFixed(1),
    'delivery p50 ms': r.delivery.length ? Math.round(percentile(r.delivery, 0.5)) : '—',
    'delivery p99 ms': r.delivery.length ? Math.round(percentile(r.delivery, 0.99)) : '—',
    delivered: r.expected ? `${((r.delivered / r.expected) * 100).toFixed(2)}%` : '—',
    'ingest p99 ms': Math.round(r.ingestP99),
    'ingest p99 ×': +(r.ingestP99 / baselineP99).toFixed(2),
    'RSS MB': Math.round(r.rssMb),
    'db xact/s': Math.round(r.xactPerSecond),
  };
}

function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

function rssMb(server: ServerProcess): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function xactCommit(): Promise<number> {
  const [r] = await stats<
    { n: string }[]
  >`select xact_commit::text as n from pg_stat_database where datname = ${dbName}`;
  return Number(r?.n ?? 0);
}

async function adminToken(): Promise<string> {
  const d = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  try {
    const created = await createToken(d.sql, {
      name: 'bench',
      scope: 'admin',
      projectIds: null,
      expiresAt: null,
      createdBy: 'bench',
    });
    return created.token;
  } finally {
    await d.close();
  }
}

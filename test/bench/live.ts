// `npm run bench:live`: live subscribers of one project on one server process (PostgreSQL) while ingest
// runs (a batch of 10 pageviews every 100 ms): 1,000, 5,000 and 10,000 SSE streams, WebSockets and
// long-polls of the log stream, each size on a fresh server, which first takes the same ingest without
// subscribers. Prints, a run: delivery p50/p99 (from sending a batch to each subscriber seeing its batch
// line), the share of (subscriber, line) pairs delivered, ingest p50/p99 without and with the subscribers,
// the server's peak RSS, database transactions a second (pg_stat_database's xact_commit over the window),
// the CPU the server and this process used, and the load average before and after.
//
// Pinning: on 2 cores, 10,000 subscribers in this process cost more CPU than the server feeding them, and
// their bursts land on every delivery tick, so unpinned the bench measured the server and its clients
// fighting for the same cores. The server is therefore pinned to one core (BENCH_SERVER_CPUS, default 0)
// and this process, with its subscribers and the ingest worker thread, to the other (BENCH_CLIENT_CPUS,
// default 1), with `taskset`, for both windows of a run alike. PostgreSQL is not pinned (it is shared
// with others): its backends go wherever the kernel puts them. BENCH_PIN=0 runs unpinned.
// Windows: BENCH_SECONDS (60) of ingest each, alone and with subscribers: 600 answers, so the p99 is the
// sixth slowest rather than the single worst of a short window. A run of 10,000 takes about 3 minutes.
// BENCH_SIZES (1000,5000,10000), BENCH_KINDS (sse,websocket,long-poll), BENCH_CPU_PROF=<dir> (a CPU
// profile of each server), BENCH_PORT (first port tried for the server, 7400).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import postgres from 'postgres';
import { createToken } from '../../src/db/tokens.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess, type ServerProcess } from '../support/process.ts';
import { subscribe, type Kind, type Subscriber } from './live-subscribers.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const sizes = (process.env.BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const kinds = (process.env.BENCH_KINDS ?? 'sse,websocket,long-poll').split(',') as Kind[];
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.DATABASE_URL = databaseUrl; // createTestDatabase makes the bench's own database beside it
const BATCH_EVERY_MS = 100;
const pin = process.env.BENCH_PIN !== '0';
const serverCpus = process.env.BENCH_SERVER_CPUS ?? '0';
const clientCpus = process.env.BENCH_CLIENT_CPUS ?? '1';
const firstPort = Number(process.env.BENCH_PORT ?? 7400);
if (pin) {
  // Every thread this process has now (-a); the ingest worker and libuv's threads made later inherit it.
  execFileSync('taskset', ['-a', '-cp', clientCpus, String(process.pid)], { stdio: 'ignore' });
  console.log(
    `pinned: server on CPU ${serverCpus}, subscribers and ingest (this process, pid ${process.pid}) on CPU ${clientCpus}; PostgreSQL unpinned`,
  );
} else console.log('unpinned: server, subscribers, ingest and PostgreSQL share every core');
console.log(`windows of ${seconds} s, a batch every ${BATCH_EVERY_MS} ms`);

type IngestJob = { url: string; secretKey: string; run: string; seconds: number; everyMs: number };
type IngestMessage = { sent: number; at: number } | { done: true; ingestMs: number[] };
const GRACE_MS = 3_000; // after the last batch, for lines still on their way

const db = await createTestDatabase();
const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir };
const project = await prepareProject(env, 'live');
const token = await adminToken();
const stats = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const dbName = new URL(db.databaseUrl!).pathname.slice(1);

const rows: Record<string, string | number>[] = [];
try {
  for (const kind of kinds)
    for (const size of sizes) {
      const r = await run(kind, size);
      rows.push(row(kind, size, r));
      console.table(rows.slice(-1));
    }
  console.log(
    `\nbench:live, ${seconds} s of ingest a window, a batch every ${BATCH_EVERY_MS} ms, ` +
      (pin ? `server on CPU ${serverCpus}, clients on CPU ${clientCpus}:` : 'unpinned:'),
  );
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
  ingestP50: number;
  /** Ingest p50 and p99 on the same server before the subscribers connected. */
  aloneP99: number;
  aloneP50: number;
  rssMb: number;
  xactPerSecond: number;
  connectSeconds: number;
  /** CPU seconds a second over the window (1 = one core busy): the server's, and this process's (the
   *  subscribers and the ingest worker), so a run's ingest figures can be read beside who used the cores. */
  serverCpuShare: number;
  benchCpuShare: number;
  serverCpuSeconds: number;
  /** The machine's one-minute load average before the run and at the end of the window (2 cores: above
   *  2, runs waited for CPU). */
  loadBefore: number;
  load: number;
};

async function run(kind: Kind | null, size: number): Promise<Result> {
  const cpuProf = process.env.BENCH_CPU_PROF;
  const loadBefore = loadavg()[0]!;
  const server = await startServerProcess(env, {
    nodeArgs: ['--max-old-space-size=2048', ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [])],
    port: await portInRange(),
    ...(pin ? { cpus: serverCpus } : {}),
  });
  const runTag = Math.random().toString(36).slice(2, 8);
  const subscribers: Subscriber[] = [];
  try {
    const sentAt = new Map<number, number>();
    // Kept as (batch, time) and matched with the send times at the end: a line can reach this thread before
    // the worker's word that its batch was sent.
    const seenBatch: number[] = [];
    const seenAt: number[] = [];
    const seen = (n: number, at: number) => {
      seenBatch.push(n);
      seenAt.push(performance.timeOrigin + at); // comparable with the worker's send times
    };
    // The project's actor exists before anyone subscribes.
    const warm = await fetch(`${server.url}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `warm-${runTag}`, name: 'pageview', visitor: 'warm' }),
    });
    if (warm.status !== 202) throw new Error(`ingest answered ${warm.status}`);
    // The same server without subscribers first, right before they connect: the machine is shared, so
    // ingest p99 is compared with a window of this run rather than with another run's.
    const aloneMs = await ingestWindow(server, `${runTag}a`, () => {});
    const connectStarted = performance.now();
    for (let i = 0; kind && i < size; i += 250) {
      const some = await Promise.all(
        Array.from({ length: Math.min(250, size - i) }, () =>
          subscribe(kind, { base: server.url, project: 'live', token, run: `${runTag}s` }, seen),
        ),
      );
      subscribers.push(...some);
    }
    const connectSeconds = (performance.now() - connectStarted) / 1000;
    await new Promise((r) => setTimeout(r, 1_000));

    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(server))), 250);
    const xactBefore = await settledXactCommit();
    const started = performance.now();
    const serverCpuBefore = cpuSeconds(server);
    const benchCpuBefore = process.cpuUsage();
    const ingestMs = await ingestWindow(server, `${runTag}s`, (n, at) => sentAt.set(n, at));
    const window = (performance.now() - started) / 1000 + GRACE_MS / 1000;
    await new Promise((r) => setTimeout(r, GRACE_MS));
    const serverCpu = cpuSeconds(server) - serverCpuBefore;
    const benchUsage = process.cpuUsage(benchCpuBefore);
    const benchCpu = (benchUsage.user + benchUsage.system) / 1e6;
    const xact = (await settledXactCommit()) - xactBefore;
    clearInterval(sampler);
    peakRss = Math.max(peakRss, rssMb(server));
    const delivery = seenBatch.flatMap((n, i) => (sentAt.has(n) ? [seenAt[i]! - sentAt.get(n)!] : []));
    return {
      delivery,
      delivered: delivery.length,
      expected: sentAt.size * size,
      ingestP99: percentile(ingestMs, 0.99),
      ingestP50: percentile(ingestMs, 0.5),
      aloneP99: percentile(aloneMs, 0.99),
      aloneP50: percentile(aloneMs, 0.5),
      rssMb: peakRss,
      xactPerSecond: xact / window,
      connectSeconds,
      serverCpuShare: serverCpu / window,
      serverCpuSeconds: serverCpu,
      loadBefore,
      load: loadavg()[0]!,
      benchCpuShare: benchCpu / window,
    };
  } finally {
    for (const s of subscribers) s.close();
    await server.kill('SIGTERM');
  }
}

/** Sends a batch every BATCH_EVERY_MS for `seconds` from a worker thread (request ids `bench-<tag>-<n>`);
 *  answers every answer's duration in ms. */
function ingestWindow(server: ServerProcess, tag: string, sent: (n: number, at: number) => void): Promise<number[]> {
  return new Promise<number[]>((resolve, reject) => {
    const job: IngestJob = {
      url: server.url,
      secretKey: project.secretKey,
      run: tag,
      seconds,
      everyMs: BATCH_EVERY_MS,
    };
    const worker = new Worker(new URL('./live-ingest.mjs', import.meta.url), { workerData: job });
    worker.on('message', (m: IngestMessage) => ('done' in m ? resolve(m.ingestMs) : sent(m.sent, m.at)));
    worker.on('error', reject);
  });
}

function row(kind: string, size: number, r: Result) {
  return {
    subscribers: `${kind} ${size}`,
    'connect s': +r.connectSeconds.toFixed(1),
    'delivery p50 ms': r.delivery.length ? Math.round(percentile(r.delivery, 0.5)) : '—',
    'delivery p99 ms': r.delivery.length ? Math.round(percentile(r.delivery, 0.99)) : '—',
    delivered: r.expected ? `${((r.delivered / r.expected) * 100).toFixed(2)}%` : '—',
    'ingest p50 alone ms': Math.round(r.aloneP50),
    'ingest p99 alone ms': Math.round(r.aloneP99),
    'ingest p50 ms': Math.round(r.ingestP50),
    'ingest p99 ms': Math.round(r.ingestP99),
    'ingest p99 ×': +(r.ingestP99 / r.aloneP99).toFixed(2),
    'RSS MB': Math.round(r.rssMb),
    'db xact/s': Math.round(r.xactPerSecond),
    'server CPU': +r.serverCpuShare.toFixed(2),
    // What a machine short of CPU does not change: the server's CPU time for each (subscriber, line) pair.
    'CPU µs/delivery': r.delivered ? +((r.serverCpuSeconds * 1e6) / r.delivered).toFixed(1) : '—',
    'bench CPU': +r.benchCpuShare.toFixed(2),
    load: `${r.loadBefore.toFixed(1)}→${r.load.toFixed(1)}`,
  };
}

function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** The first port from BENCH_PORT on that nobody listens on (the bench's range: 100 ports). */
async function portInRange(): Promise<number> {
  for (let port = firstPort; port < firstPort + 100; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${firstPort}–${firstPort + 99}`);
}

function rssMb(server: ServerProcess): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The server process's user + system CPU seconds so far (/proc/<pid>/stat, clock ticks of 1/100 s). */
function cpuSeconds(server: ServerProcess): number {
  try {
    const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** xact_commit once it stopped rising: PostgreSQL reports a backend's counts up to 10 s late when it goes
 *  idle, so the subscribers' reads at connect time (or the window's last ones) would land in the wrong
 *  window. Waits at most 12 s. */
async function settledXactCommit(): Promise<number> {
  let last = await xactCommit();
  for (let quiet = 0, i = 0; quiet < 2 && i < 12; i++) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = await xactCommit();
    quiet = now - last <= 2 ? quiet + 1 : 0;
    last = now;
  }
  return last;
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

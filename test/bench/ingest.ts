// `npm run bench:ingest`: ingest throughput of the real server (a child process, so the load generator
// does not share its event loop) against PostgreSQL, beside the bounds measured on this machine in the
// same run: a bare uWebSockets.js handler, and the raw bulk-insert rate of the same events table, measured
// right after the phase it bounds on the rows that phase stored (the machines drift by minutes). The
// 20%-error mix goes to a project of its own, so its bound is the raw rate of its own rows.
// DATABASE_URL is required (a fresh database is created on it and dropped after). BENCH_SECONDS (10),
// BENCH_BATCH_CONNECTIONS (50), BENCH_SINGLE_CONNECTIONS (100) tune it; BENCH_CPU_PROF=<dir> profiles the server;
// BENCH_ONLY=single (or batched, errors; comma-separated) runs only those phases of the real server;
// the server runs as `npm start` runs it (the start script's node flags), and BENCH_NODE_ARGS adds flags after
// those (e.g. `--max-semi-space-size=16`, V8's default); BENCH_SERVER_ENV passes settings to the server
// (e.g. `CHECKPOINT_MS=15000 LOG_LEVEL=info`); BENCH_SERVER_DIR=<folder of another checkout> runs that tree's
// server under this harness (old against new, same columns). The load comes from wrk when it is installed (else
// autocannon; BENCH_LOADGEN=autocannon forces it, see load.ts); its own CPU a request is a column, as are how
// busy the server's main thread was and the write-ahead log an event wrote (steady from machine to machine).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';
import { prepareProject, startServerProcess } from '../support/process.ts';
import { makeTemplates, makeVisitors } from './ingest-events.ts';
import { loadGenerator, type Load, type LoadResult } from './load.ts';
import { createCpuMeter, type CpuSample } from './cpu-meter.ts';
import { measureRawInsert, walPosition, type RawFigures } from './ingest-raw.ts';

if (!process.env.DATABASE_URL) {
  console.error(
    'bench:ingest measures against PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).',
  );
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const batchConnections = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 50);
const singleConnections = Number(process.env.BENCH_SINGLE_CONNECTIONS ?? 100);
const cpuProf = process.env.BENCH_CPU_PROF;
const allocProf = process.env.BENCH_ALLOC_PROF;
const BATCH = 50;
const only = process.env.BENCH_ONLY?.split(',');
const runs = (phase: string) => !only || only.includes(phase);

type Row = {
  phase: string;
  conns: number;
  'req/s': number;
  'events/s': number;
  'p50 ms': number;
  'p99 ms': number;
  'non-2xx/err': number;
  'server µs/ev': number | string;
  'main thread': string;
  'db µs/ev': number | string;
  /** This database's backends alone (db µs/ev adds the WAL writer, checkpointer and background writer,
   *  which work for every database of the server). */
  'backends µs/ev': number | string;
  'WAL B/ev': number | string;
  'client µs/req': number | string;
  target: string;
};

const visitors = makeVisitors(5_000);
const plain = { errors: 0 };
const batchTemplates = makeTemplates(400, BATCH, visitors, plain);
const singleTemplates = makeTemplates(4_000, 1, visitors, plain);
const errorTemplates = makeTemplates(400, BATCH, visitors, { errors: 0.2 });
const size = (t: string[][]) => Math.round(t.reduce((a, p) => a + p.join('"x.1"').length, 0) / t.length);
console.log(
  `bodies: batch ~${size(batchTemplates)} B, single ~${size(singleTemplates)} B, error mix ~${size(errorTemplates)} B; ${visitors.length} visitors`,
);

const generator = loadGenerator(seconds);
const load = generator.run;
const db = await createTestDatabase();
const rows: Row[] = [];
try {
  // (c1) the transport bound
  const bare = await startBare();
  try {
    await load({ url: bare.url, connections: singleConnections, templates: singleTemplates, tag: 'w', duration: 2 });
    rows.push(
      row(
        'bare uWS, 1 event',
        singleConnections,
        await load({ url: bare.url, connections: singleConnections, templates: singleTemplates, tag: 'b' }),
        1,
        '',
      ),
    );
    rows.push(
      row(
        'bare uWS, 50 events',
        batchConnections,
        await load({ url: bare.url, connections: batchConnections, templates: batchTemplates, tag: 'c' }),
        BATCH,
        '',
      ),
    );
  } finally {
    bare.stop();
  }

  // (a), (b), (d) the real server
  const extra = Object.fromEntries(
    (process.env.BENCH_SERVER_ENV ?? '')
      .split(' ')
      .filter(Boolean)
      .map((kv) => kv.split(/=(.*)/s).slice(0, 2)),
  );
  // The allocation sampler (preloaded below) reads its directory from the server's environment.
  if (allocProf) extra.BENCH_ALLOC_PROF = allocProf;
  const env = { databaseUrl: db.databaseUrl, dataDir: db.dataDir, extra };
  const project = await prepareProject(env, 'bench');
  const errorsProject = await prepareProject(env, 'bench-errors');
  await prepareProject(env, 'raw');
  const check = await openDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  const storedIn = async (projectId: string) =>
    (await check.sql<[{ n: number }]>`select count(*)::int as n from events where project_id = ${projectId}`)[0].n;
  /** The raw COPY of up to a phase's worth of the rows `projectId` holds, while the server idles. The bound's
   *  own rows write as much WAL as the phase did, and reaching max_wal_size they started a checkpoint in the
   *  middle of the next phase (its full-page writes and flushing then cost that phase, not the bound): a
   *  CHECKPOINT after it, so every phase starts as the first does, just after one. */
  const rawCopy = async (
    projectId: string,
    phase: Row,
    meter: { sample: () => Promise<CpuSample> },
    opts = { recordset: true },
  ) => {
    const databaseSeconds = async () => (await meter.sample()).database;
    const limit = Math.min(await storedIn(projectId), Math.max(50_000, phase['events/s'] * seconds));
    const figures = await measureRawInsert(check.sql, projectId, 'raw', limit, { ...opts, databaseSeconds });
    await check.sql`checkpoint`;
    return figures;
  };
  try {
    const nodeArgs = [
      ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []),
      ...(allocProf ? ['--import', new URL('./alloc-sampler.mjs', import.meta.url).pathname] : []),
      ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    ];
    const server = await startServerProcess(env, { nodeArgs });
    const monitor = postgres(db.databaseUrl!, { max: 1, onnotice: () => {} });
    const meter = createCpuMeter(server.child.pid!, monitor as never);
    let sent = 0;
    let cutOff = 0; // the load generator stops counting at the deadline: requests then in flight may still commit
    let batched: Row | undefined;
    let errors: Row | undefined;
    let rawBatched: RawFigures | undefined;
    let rawErrors: RawFigures | undefined;
    try {
      const run = async (o: Omit<Load, 'url' | 'token'>, perRequest: number, token = project.secretKey) => {
        const before = await meter.sample();
        const wal = await walPosition(monitor);
        const r = await load({ ...o, url: server.url, token });
        const cpu = diff(await meter.sample(), before);
        const walBytes = (await walPosition(monitor)) - wal;
        sent += r.ok * perRequest;
        cutOff += o.connections * perRequest;
        return Object.assign(r, { cpu, walBytes });
      };
      // JIT, the writer's connections (the meter counts a backend from when it first sees it), partitions
      await run({ connections: batchConnections, templates: batchTemplates, tag: 'warm', duration: 3 }, BATCH);
      if (runs('errors'))
        await run(
          { connections: batchConnections, templates: errorTemplates, tag: 'warm-d', duration: 1 },
          BATCH,
          errorsProject.secretKey,
        );
      if (runs('batched')) {
        batched = row(
          'loupe batched (a)',
          batchConnections,
          await run({ connections: batchConnections, templates: batchTemplates, tag: 'a' }, BATCH),
          BATCH,
          '>= 25,000 ev/s, >= raw/2',
        );
        rows.push(batched);
        rawBatched = await rawCopy(project.id, batched, meter);
        rows.push(
          rawRow('raw insert json_to_recordset/500', rawBatched.recordsetRowsPerSecond!, rawBatched.recordsetRows),
        );
        rows.push(rawRow('raw insert COPY', rawBatched.copyRowsPerSecond, rawBatched.rows, rawBatched));
      }
      if (runs('single'))
        rows.push(
          row(
            'loupe single (b)',
            singleConnections,
            await run({ connections: singleConnections, templates: singleTemplates, tag: 's' }, 1),
            1,
            '>= 5,000 req/s, p99 < 50',
          ),
        );
      if (runs('errors')) {
        errors = row(
          'loupe 20% errors (d)',
          batchConnections,
          await run(
            { connections: batchConnections, templates: errorTemplates, tag: 'd' },
            BATCH,
            errorsProject.secretKey,
          ),
          BATCH,
          'as (a)',
        );
        rows.push(errors);
        rawErrors = await rawCopy(errorsProject.id, errors, meter, { recordset: false });
        rows.push(rawRow('raw insert COPY, its rows', rawErrors.copyRowsPerSecond, rawErrors.rows, rawErrors));
      }
    } finally {
      await monitor.end();
      await server.kill('SIGTERM'); // graceful: flushes, and writes the CPU profile when asked
    }

    const stored = (await storedIn(project.id)) + (await storedIn(errorsProject.id));
    console.log(
      `\n${seconds} s a phase, pipelining 1, loopback, ${(await import('node:os')).cpus().length} CPUs, Postgres + server + load generator (${generator.name}) on one machine\n`,
    );
    console.table(rows);
    const single = rows.find((r) => r.phase.startsWith('loupe single'));
    const versus = (what: string, phase: Row, raw: RawFigures) =>
      [
        [`${what} ${phase['events/s']} ev/s >= 25,000`, phase['events/s'] >= 25_000],
        [
          `${what} >= half raw COPY of its rows (${Math.round(raw.copyRowsPerSecond / 2)})`,
          phase['events/s'] >= raw.copyRowsPerSecond / 2,
        ],
      ] as const;
    const verdicts: (readonly [string, boolean])[] = [
      ...(batched && rawBatched
        ? [
            ...versus('batched', batched, rawBatched),
            [
              `batched >= half raw json_to_recordset (${Math.round(rawBatched.recordsetRowsPerSecond! / 2)})`,
              batched['events/s'] >= rawBatched.recordsetRowsPerSecond! / 2,
            ] as const,
          ]
        : []),
      ...(single
        ? ([
            [`single ${single['req/s']} req/s >= 5,000`, single['req/s'] >= 5_000],
            [`single p99 ${single['p99 ms']} ms < 50`, single['p99 ms'] < 50],
          ] as const)
        : []),
      ...(errors && rawErrors ? versus('20% errors', errors, rawErrors) : []),
      [
        `stored ${stored} = acknowledged ${sent} + up to ${cutOff} in flight at the phase deadlines`,
        stored >= sent && stored <= sent + cutOff,
      ],
    ];
    for (const [what, ok] of verdicts) console.log(`${ok ? 'ok          ' : 'BELOW TARGET'}  ${what}`);
    // The same comparison in CPU time, which moves less than rates do on a machine whose speed drifts.
    for (const [what, phase, raw] of [
      ['batched', batched, rawBatched],
      ['20% errors', errors, rawErrors],
    ] as const) {
      const cost = phase && raw ? cpuAnEvent(phase) : null;
      if (cost === null || raw?.copyDatabaseMicros == null) continue;
      const bound = raw.copyClientMicros + raw.copyDatabaseMicros;
      console.log(
        `${what}: ${cost} µs of CPU an event (server, database, load generator) against the raw COPY's ${bound} a row` +
          ` (client ${raw.copyClientMicros}, database ${raw.copyDatabaseMicros}): ${(cost / bound).toFixed(2)}x`,
      );
    }
    if (rows.some((r) => r['non-2xx/err'] > 0) || stored < sent || stored > sent + cutOff) process.exitCode = 1;
  } finally {
    await check.close();
  }
} finally {
  await db.drop();
  generator.close();
}

/** A phase's CPU an event on the whole machine: the server's, PostgreSQL's and the load generator's. */
function cpuAnEvent(phase: Row): number | null {
  const [server, db, client] = [phase['server µs/ev'], phase['db µs/ev'], phase['client µs/req']];
  if (typeof server !== 'number' || typeof db !== 'number' || typeof client !== 'number') return null;
  return Math.round(server + db + client / BATCH);
}

function row(
  phase: string,
  conns: number,
  r: LoadResult & { cpu?: CpuSample; walBytes?: number },
  perRequest: number,
  target: string,
): Row {
  const rps = r.ok / r.seconds;
  const events = r.ok * perRequest;
  const perEvent = (seconds: number | undefined) =>
    seconds === undefined ? '' : Math.round((seconds * 1e6) / Math.max(1, events));
  return {
    phase,
    conns,
    'req/s': Math.round(rps),
    'events/s': Math.round(rps * perRequest),
    'p50 ms': r.p50Ms,
    'p99 ms': r.p99Ms,
    'non-2xx/err': r.failed,
    'server µs/ev': perEvent(r.cpu?.server),
    'main thread': mainThread(r.cpu, r.seconds),
    'db µs/ev': perEvent(r.cpu?.database),
    'backends µs/ev': perEvent(r.cpu?.backends),
    'WAL B/ev': r.walBytes === undefined ? '' : Math.round(r.walBytes / Math.max(1, events)),
    'client µs/req': Math.round((r.clientCpu * 1e6) / Math.max(1, r.ok + r.failed)),
    target,
  };
}

/** A bound's line: the raw insert of `rows` of a phase's own rows; for the COPY, its CPU and WAL a row (the
 *  client's CPU in the load generator's column). */
function rawRow(phase: string, rowsPerSecond: number, rows: number, copy?: RawFigures): Row {
  return {
    phase,
    conns: 1,
    'req/s': 0,
    'events/s': Math.round(rowsPerSecond),
    'p50 ms': 0,
    'p99 ms': 0,
    'non-2xx/err': 0,
    'server µs/ev': '',
    'main thread': '',
    'db µs/ev': copy?.copyDatabaseMicros ?? '',
    'backends µs/ev': '',
    'WAL B/ev': copy?.copyWalBytes ?? '',
    'client µs/req': copy?.copyClientMicros ?? '',
    target: `${rows} rows`,
  };
}

function diff(a: CpuSample, b: CpuSample): CpuSample {
  return {
    server: a.server - b.server,
    mainThread: a.mainThread - b.mainThread,
    database: a.database - b.database,
    backends: a.backends - b.backends,
  };
}

/** How busy the server's main thread was: at 100% it, not the machine, sets the pace. */
function mainThread(cpu: CpuSample | undefined, seconds: number): string {
  return cpu ? `${Math.round((cpu.mainThread / seconds) * 100)}%` : '';
}

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import=tsx', new URL('./ingest-bare.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return { url: (JSON.parse(line) as { url: string }).url, stop: () => void child.kill('SIGTERM') };
}

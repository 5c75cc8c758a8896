// `npm run bench:query`: what a dashboard sees, through the real server (a child process), on a project
// seeded over 90 days by `cli seed`: each read of the list (query/reads.ts) first after the seed, first
// after a restart, warm, and while ingest runs at 2,000 events/s with 1% dated yesterday (its p99 beside
// that of the same load without reads, and with the list less its raw-path comparisons). One table per size
// and backend, then the rollups' storage per million events.
//
// Backends: PostgreSQL when DATABASE_URL (a fresh database is made on it, dropped after unless BENCH_KEEP=1)
// or BENCH_DB_URL (a database to reuse, e.g. kept from an earlier run: seeded projects are not seeded again),
// sizes BENCH_SIZES (1M,10M); and the embedded default (the server without DATABASE_URL, seeded through the
// CLI into its data folder, BENCH_DATA_DIR to reuse one), sizes BENCH_EMBEDDED_SIZES (1M). BENCH_BACKENDS
// (pg,embedded; embedded alone without a database URL) picks. BENCH_RUNS (30) warm requests a read within
// BENCH_READ_SECONDS (20); BENCH_INGEST_SECONDS (30) of each ingest kind, in BENCH_INGEST_ROUNDS (3)
// alternating rounds; BENCH_INGEST_RATE (2000), BENCH_LATE_SHARE (0.01), BENCH_INGEST_BATCH (20);
// BENCH_TIMEOUT_S (600) bounds every request. BENCH_ROLLUP_BUILD_MS sets the server's ROLLUP_BUILD_MS;
// BENCH_PORT its port (a free one otherwise); BENCH_PROJECT the project a reused database holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { dashboardReads } from './query/reads.ts';
import { ingestTable, readTable, storageLines, type Targets } from './query/report.ts';
import { runPlan, type Plan } from './query/run.ts';
import { freshDatabase, storage } from './query/setup.ts';

const env = process.env;
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);
const sizes = (s: string) =>
  s.split(',').map((label) => {
    const m = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(label.trim());
    if (!m) throw new Error(`not a size: ${label} (e.g. 1M, 250k)`);
    return { label: label.trim(), events: Math.round(Number(m[1]) * { '': 1, k: 1e3, m: 1e6 }[m[2]!.toLowerCase()]!) };
  });
// The ids the earlier bench seeded, so a database kept from it is still reused; BENCH_PROJECT names another
// (a database seeded by hand with `cli seed --project …`).
const projectId = (label: string) =>
  env.BENCH_PROJECT ??
  ({ '1M': 'bench-a', '10M': 'bench-b' } as Record<string, string>)[label] ??
  `bench-${label.toLowerCase()}`;

const pgUrl = env.BENCH_DB_URL ?? env.DATABASE_URL;
const backends = (env.BENCH_BACKENDS ?? (pgUrl ? 'pg,embedded' : 'embedded')).split(',');
if (backends.includes('pg') && !pgUrl) {
  console.error('bench:query on PostgreSQL needs DATABASE_URL (or BENCH_DB_URL for a seeded database).');
  process.exit(2);
}
const runs = (backend: string, list: string) => (backends.includes(backend) ? sizes(list).length : 0);
if (
  env.BENCH_PROJECT &&
  runs('pg', env.BENCH_SIZES ?? '1M,10M') + runs('embedded', env.BENCH_EMBEDDED_SIZES ?? '1M') > 1
) {
  console.error('BENCH_PROJECT names the project of one run: set BENCH_BACKENDS and BENCH_SIZES to one.');
  process.exit(2);
}
const common = {
  reads: dashboardReads(),
  runs: num('BENCH_RUNS', 30),
  readBudgetMs: num('BENCH_READ_SECONDS', 20) * 1000,
  timeoutMs: num('BENCH_TIMEOUT_S', 600) * 1000,
  ingest: {
    eventsPerSecond: num('BENCH_INGEST_RATE', 2000),
    lateShare: num('BENCH_LATE_SHARE', 0.01),
    batch: num('BENCH_INGEST_BATCH', 20),
  },
  ingestSeconds: num('BENCH_INGEST_SECONDS', 30),
  ingestRounds: num('BENCH_INGEST_ROUNDS', 3),
};
const keep = env.BENCH_KEEP === '1';
const out: string[] = [];
const cleanups: (() => Promise<void>)[] = [];

try {
  for (const backend of backends) {
    const pg = backend === 'pg';
    const targets: Targets = pg ? { p50: 250, p99: 1000 } : { p50: 1000, p99: 1000 };
    let databaseUrl: string | undefined;
    if (pg && env.BENCH_DB_URL) databaseUrl = env.BENCH_DB_URL;
    else if (pg) {
      databaseUrl = await freshDatabase(env.DATABASE_URL!);
      console.error(`database ${databaseUrl} (BENCH_KEEP=1 keeps it; pass it as BENCH_DB_URL to reuse it)`);
      if (!keep) cleanups.push(() => dropDatabase(env.DATABASE_URL!, databaseUrl!));
    }
    const dataDir =
      !pg && env.BENCH_DATA_DIR ? env.BENCH_DATA_DIR : await mkdtemp(path.join(tmpdir(), 'loupe-qbench-'));
    if (pg || !env.BENCH_DATA_DIR)
      cleanups.push(() => (keep && !pg ? Promise.resolve() : rm(dataDir, { recursive: true, force: true })));
    if (!pg && keep) console.error(`data folder ${dataDir} (pass it as BENCH_DATA_DIR to reuse it)`);
    const rollupBuildMs = env.BENCH_ROLLUP_BUILD_MS;
    const serverEnv = {
      databaseUrl,
      dataDir,
      extra: rollupBuildMs ? { ROLLUP_BUILD_MS: rollupBuildMs } : ({} as Record<string, string>),
    };
    for (const size of sizes(pg ? (env.BENCH_SIZES ?? '1M,10M') : (env.BENCH_EMBEDDED_SIZES ?? '1M'))) {
      const port = env.BENCH_PORT ? Number(env.BENCH_PORT) : undefined;
      const plan: Plan = { ...common, port, env: serverEnv, projectId: projectId(size.label), events: size.events };
      const o = await runPlan(plan);
      const title = `${size.label} events (${plan.projectId}), ${pg ? 'PostgreSQL' : 'embedded PGlite'}`;
      const text = [
        readTable(title, o.rows, targets),
        ingestTable(o.alone, o.withReads, o.withDashboardReads, common.ingest.batch),
        ...o.notes.map((n) => `- ${n}`),
      ].join('\n');
      out.push(text);
      console.error(`\n${text}\n`);
    }
    const s = storageLines(pg ? 'PostgreSQL' : 'embedded PGlite', await storage(serverEnv));
    out.push(s);
    console.error(s);
  }
  console.log(
    `\n\nAll tables (ms; "!" over target; a first read is one request, held to the p50 target; warm: ${common.runs} requests ` +
      `within ${common.readBudgetMs / 1000} s a read; under ingest: round after round through the list for ` +
      `${common.ingestSeconds} s while ${common.ingest.eventsPerSecond} events/s arrive, ${common.ingest.lateShare * 100}% dated yesterday):\n`,
  );
  console.log(out.join('\n\n'));
} finally {
  for (const c of cleanups) await c().catch((e: unknown) => console.error(`cleanup: ${(e as Error).message}`));
}

async function dropDatabase(base: string, url: string): Promise<void> {
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  await admin.end();
}

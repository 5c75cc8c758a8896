// `npm run bench:query`: p50/p95 latency of the aggregate reads through the real server (a child
// process) at 1 million events (project bench-a) and 10 million (bench-b), seeded by src/seed over 90 days.
// DATABASE_URL is required: a fresh database is made on it and seeded (minutes for 10M). BENCH_DB_URL
// names an already seeded database to reuse instead. BENCH_RUNS (20), BENCH_EVENTS_A / _B tune it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject } from '../../src/db/projects.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { seedProject } from '../../src/seed/index.ts';
import { ensureRollups } from '../../src/query/rollup/build.ts';
import { startServerProcess } from '../support/process.ts';

const base = process.env.DATABASE_URL;
const reuse = process.env.BENCH_DB_URL;
if (!base && !reuse) {
  console.error('bench:query measures against PostgreSQL: set DATABASE_URL (or BENCH_DB_URL for a seeded database).');
  process.exit(2);
}
const runs = Number(process.env.BENCH_RUNS ?? 20);
const projects = [
  { id: 'bench-a', label: '1M', events: Number(process.env.BENCH_EVENTS_A ?? 1_000_000) },
  { id: 'bench-b', label: '10M', events: Number(process.env.BENCH_EVENTS_B ?? 10_000_000) },
];
const TARGET_MS = 250;

const databaseUrl = reuse ?? (await freshDatabase(base!));
const token = await prepare(databaseUrl);
console.error('starting the server …');
const server = await startServerProcess({ databaseUrl, dataDir: await mkdtemp(path.join(tmpdir(), 'loupe-bench-')) });

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
const weeks12 = `from=${new Date(monday - 12 * 7 * DAY).toISOString()}&to=${new Date(monday).toISOString()}`;
const reads: { name: string; path: (p: string) => string; across?: boolean }[] = [
  { name: 'stats 30d', path: (p) => `/v2/projects/${p}/stats?period=30d` },
  {
    name: 'timeseries 30d by day',
    path: (p) => `/v2/projects/${p}/timeseries?period=30d&metric=visitors&interval=day`,
  },
  { name: 'breakdown page', path: (p) => `/v2/projects/${p}/breakdown/page?period=30d` },
  {
    name: 'breakdown country, filter device=mobile',
    path: (p) => `/v2/projects/${p}/breakdown/country?period=30d&filter[device]=mobile`,
  },
  { name: 'breakdown prop:plan', path: (p) => `/v2/projects/${p}/breakdown/prop:plan?period=30d&filter[event]=signup` },
  { name: 'retention 12 weeks', path: (p) => `/v2/projects/${p}/retention?interval=week&${weeks12}` },
  { name: '/v2/breakdown/project (both projects)', path: () => `/v2/breakdown/project?period=30d`, across: true },
];

type Cell = { first: number; p50: number; p95: number } | string;
// Values the reads keep per range (distinct visitors, per page, per value) are dropped before each read's
// first request, so `first` is the read computing them, with the day rollups built.
const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
const table: Record<string, string | number>[] = [];
try {
  for (const read of reads) {
    const cells: Cell[] = [];
    for (const p of read.across ? [projects[1]!] : projects) {
      cells.push(await measure(read.path(p.id)));
      console.error(`${read.name} @ ${read.across ? 'all' : p.label}: ${JSON.stringify(cells.at(-1))}`);
    }
    const [a, b] = read.across ? ['(same read)', cells[0]!] : cells;
    const ok = [a, b].every((c) => typeof c === 'string' || c!.p50 < TARGET_MS);
    table.push({
      read: read.name,
      ...columns('1M', a!),
      ...columns('10M', b!),
      target: `< ${TARGET_MS} ms p50`,
      ok: ok ? 'ok' : 'SLOW',
    });
  }
} finally {
  await server.kill();
  await admin.end();
}
console.log(
  `\n${runs} warm runs each (after 2 warm-up runs), one request at a time, loopback; "first": the first request, with the`,
);
console.log('day rollups built and the values kept per range dropped (distinct visitors, per page, per value)\n');
console.table(table);

function columns(label: string, c: Cell): Record<string, string | number> {
  return typeof c === 'string'
    ? { [`${label} first ms`]: c, [`${label} p50 ms`]: '', [`${label} p95 ms`]: '' }
    : { [`${label} first ms`]: c.first, [`${label} p50 ms`]: c.p50, [`${label} p95 ms`]: c.p95 };
}

async function measure(pathname: string): Promise<Cell> {
  const get = () => fetch(server.url + pathname, { headers: { authorization: `Bearer ${token}` } });
  await admin`delete from rollup_range_values`;
  const started = performance.now();
  const probe = await get();
  const body = await probe.text();
  const first = Math.round((performance.now() - started) * 10) / 10;
  if (probe.status === 404) return 'no route';
  if (probe.status !== 200) return `HTTP ${probe.status}: ${body.slice(0, 60)}`;
  await (await get()).text();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await (await get()).text();
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
  return { first, p50: at(0.5), p95: at(0.95) };
}

/** Migrates, seeds each project that has no events yet, and makes a read token for every project. */
async function prepare(url: string): Promise<string> {
  const db = await openDatabase({ databaseUrl: url, dataDir: '.', log: createLogger('warn'), max: 2 });
  try {
    await migrate(db.sql);
    for (const p of projects) {
      await createProject(db.sql, { id: p.id, name: p.id, visibility: 'private' });
      const [row]: [{ n: number }?] = await db.sql`select count(*)::int as n from sessions where project_id = ${p.id}`;
      if (row!.n > 0) continue;
      console.error(`seeding ${p.events} events into ${p.id} …`);
      console.error(JSON.stringify(await seedProject(db.sql, { projectId: p.id, events: p.events, embedded: false })));
    }
    // The reads are measured warm: the day rollups of the seeded span (and the days before it that
    // previous-period reads touch) are built here, once, and the time it takes is printed.
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
    const from = new Date(today.getTime() - 120 * 86_400_000);
    for (const p of projects) {
      const t0 = performance.now();
      await ensureRollups(db.sql, [p.id], from.toISOString().slice(0, 10), today.toISOString().slice(0, 10));
      console.error(`rollups of ${p.id} current in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    return (
      await createToken(db.sql, { name: 'bench', scope: 'read', projectIds: null, expiresAt: null, createdBy: 'bench' })
    ).token;
  } finally {
    await db.close();
  }
}

async function freshDatabase(url: string): Promise<string> {
  const name = `loupe_bench_${Date.now().toString(36)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  console.error(`database ${u.toString()} (pass it as BENCH_DB_URL to reuse it)`);
  return u.toString();
}

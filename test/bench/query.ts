// `npm run bench:query`: what a dashboard sees of the aggregate reads, through the real server (a child
// process), on projects seeded by src/seed over 90 days (bench-a 1M events, bench-b 10M): the first read
// after the seed and after a restart, warm p50/p99, and p50/p99 while ingest runs at 2,000 events/s with
// 1% dated yesterday, with ingest's p99 beside a run without reads.
// DATABASE_URL: a fresh database is made on it and seeded; BENCH_DB_URL names a seeded one to reuse;
// BENCH_EMBEDDED=1 runs on embedded PGlite in a fresh data directory instead (BENCH_EVENTS_B defaults to 0
// there). BENCH_RUNS (20), BENCH_EVENTS_A / _B (0 skips the project), BENCH_INGEST_SECONDS (30) tune it.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject, rotateSecretKey } from '../../src/db/projects.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { seedProject } from '../../src/seed/index.ts';
import { rebuildPendingDays } from '../../src/db/rollup-apply.ts';
import { startServerProcess } from '../support/process.ts';

const embedded = process.env.BENCH_EMBEDDED === '1';
const base = process.env.DATABASE_URL;
const reuse = process.env.BENCH_DB_URL;
if (!embedded && !base && !reuse) {
  console.error('bench:query: set DATABASE_URL (or BENCH_DB_URL for a seeded database, or BENCH_EMBEDDED=1).');
  process.exit(2);
}
const runs = Number(process.env.BENCH_RUNS ?? 20);
const ingestSeconds = Number(process.env.BENCH_INGEST_SECONDS ?? 30);
const projects = [
  { id: 'bench-a', label: '1M', events: Number(process.env.BENCH_EVENTS_A ?? 1_000_000) },
  { id: 'bench-b', label: '10M', events: Number(process.env.BENCH_EVENTS_B ?? (embedded ? 0 : 10_000_000)) },
].filter((p) => p.events > 0);
const INGEST_RATE = 2_000;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const TARGET_P50 = embedded ? 1000 : 250;
const TARGET_P99 = embedded ? 1000 : 1000;

const dataDir = await mkdtemp(path.join(tmpdir(), 'loupe-bench-'));
const databaseUrl = embedded ? undefined : (reuse ?? (await freshDatabase(base!)));
const { token, keys } = await prepare();
const env = { databaseUrl, dataDir };

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
const weeks12 = `from=${new Date(monday - 12 * 7 * DAY).toISOString()}&to=${new Date(monday).toISOString()}`;
type Read = { name: string; path: (p: string) => string; across?: boolean };
const reads: Read[] = [
  { name: 'stats 30d', path: (p) => `/v2/projects/${p}/stats?period=30d` },
  {
    name: 'timeseries 30d by day',
    path: (p) => `/v2/projects/${p}/timeseries?period=30d&metric=visitors&interval=day`,
  },
  { name: 'breakdown page', path: (p) => `/v2/projects/${p}/breakdown/page?period=30d` },
  { name: 'breakdown country', path: (p) => `/v2/projects/${p}/breakdown/country?period=30d` },
  {
    name: 'breakdown country, device=mobile & browser=Chrome',
    path: (p) => `/v2/projects/${p}/breakdown/country?period=30d&filter[device]=mobile&filter[browser]=Chrome`,
  },
  { name: 'breakdown referrer_domain', path: (p) => `/v2/projects/${p}/breakdown/referrer_domain?period=30d` },
  { name: 'breakdown utm_source', path: (p) => `/v2/projects/${p}/breakdown/utm_source?period=30d` },
  { name: 'breakdown channel', path: (p) => `/v2/projects/${p}/breakdown/channel?period=30d` },
  { name: 'breakdown entry_page', path: (p) => `/v2/projects/${p}/breakdown/entry_page?period=30d` },
  { name: 'breakdown prop:plan', path: (p) => `/v2/projects/${p}/breakdown/prop:plan?period=30d&filter[event]=signup` },
  {
    name: 'stats today (from 00:00 to now)',
    path: (p) => `/v2/projects/${p}/stats?from=${new Date(today).toISOString()}&to=${new Date().toISOString()}`,
  },
  { name: 'retention 12 weeks', path: (p) => `/v2/projects/${p}/retention?interval=week&${weeks12}` },
  { name: '/v2/breakdown/project (all projects)', path: () => `/v2/breakdown/project?period=30d`, across: true },
];

let server = await startServerProcess(env, { timeoutMs: 120_000 });
const admin = databaseUrl ? postgres(databaseUrl, { max: 1, onnotice: () => {} }) : null;
const rows: Record<string, string | number>[] = [];
try {
  // 1. The first request of each read after the seed (nothing kept per range yet), then warm runs.
  // BENCH_PHASES=ingest measures the ingest phases only.
  const readPhases = process.env.BENCH_PHASES !== 'ingest';
  for (const p of readPhases ? projects : []) {
    for (const read of reads) {
      if (read.across && p !== projects[0]) continue;
      const first = await timed(read.path(p.id));
      const warm = await repeat(read.path(p.id), runs);
      rows.push({ read: read.name, at: p.label, 'first after seed ms': first, ...stats('warm', warm) });
      console.error(`${read.name} @ ${p.label}: first ${first} ms, warm ${JSON.stringify(stats('', warm))}`);
    }
  }
  // 2. After a restart: the first request of each read.
  await server.kill();
  server = await startServerProcess(env, { timeoutMs: 120_000 });
  for (const p of readPhases ? projects : []) {
    for (const read of reads) {
      if (read.across && p !== projects[0]) continue;
      const row = rows.find((r) => r.read === read.name && r.at === p.label)!;
      row['first after restart ms'] = await timed(read.path(p.id));
    }
  }
  // 3. Ingest alone, then ingest with reads, on the first project.
  const p = projects[0]!;
  const alone = await ingest(keys.get(p.id)!, ingestSeconds, null);
  console.error(`ingest alone: ${JSON.stringify(alone)}`);
  const during: Map<string, number[]> = new Map();
  const beside = await ingest(keys.get(p.id)!, ingestSeconds, async (stop) => {
    while (!stop()) {
      for (const read of reads) {
        if (stop()) break;
        const ms = await timed(read.path(p.id));
        (during.get(read.name) ?? during.set(read.name, []).get(read.name)!).push(ms);
      }
    }
  });
  console.error(`ingest beside reads: ${JSON.stringify(beside)}`);
  for (const read of reads) {
    const row = rows.find((r) => r.read === read.name && r.at === p.label);
    if (row) Object.assign(row, stats('under ingest', during.get(read.name) ?? []));
  }
  for (const row of rows) {
    const worst = Object.entries(row)
      .filter(([k]) => k.endsWith('p50 ms') || k.startsWith('first'))
      .map(([, v]) => Number(v));
    const p99s = Object.entries(row)
      .filter(([k]) => k.endsWith('p99 ms'))
      .map(([, v]) => Number(v));
    row.ok = worst.every((v) => v < TARGET_P50) && p99s.every((v) => v < TARGET_P99) ? 'ok' : 'SLOW';
  }
  console.log(
    `\n${embedded ? 'embedded PGlite' : 'PostgreSQL'}; ${runs} warm runs each, one request at a time, loopback.`,
  );
  console.log(
    `"under ingest": reads in turn for ${ingestSeconds} s while ${INGEST_RATE} events/s are sent (1% dated yesterday) to ${p.label}.`,
  );
  console.log(`target: first and p50 < ${TARGET_P50} ms, p99 < ${TARGET_P99} ms\n`);
  console.table(rows);
  console.log(`ingest alone:        ${JSON.stringify(alone)}`);
  console.log(`ingest beside reads: ${JSON.stringify(beside)}`);
  console.log(`ingest p99 ratio: ${(beside.p99 / alone.p99).toFixed(2)} (target ≤ 1.5)`);
  if (admin) {
    const sizes = await admin<{ table: string; mb: number }[]>`
      select c.relname as table, round(pg_total_relation_size(c.oid) / 1e6, 1)::float8 as mb
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and (c.relname like 'rollup%' or c.relname = 'events')
      order by 2 desc`;
    const events = await admin<{ n: number; mb: number }[]>`
      select count(*)::float8 as n, round(sum(pg_total_relation_size(inhrelid)) / 1e6, 1)::float8 as mb
      from pg_inherits where inhparent = 'events'::regclass`;
    const [count] = await admin<{ n: number }[]>`select count(*)::float8 as n from events`;
    console.log(`\nstorage (${count!.n} events; events partitions ${events[0]!.mb} MB):`);
    console.table(sizes);
  }
} finally {
  await server.kill();
  await admin?.end();
}

function stats(label: string, times: number[]): Record<string, number> {
  const sorted = [...times].sort((x, y) => x - y);
  const at = (q: number) =>
    sorted.length === 0
      ? NaN
      : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
  const prefix = label ? `${label} ` : '';
  return { [`${prefix}p50 ms`]: at(0.5), [`${prefix}p99 ms`]: at(0.99) };
}

async function timed(pathname: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(server.url + pathname, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${pathname}: HTTP ${res.status} ${body.slice(0, 200)}`);
  return Math.round((performance.now() - t0) * 10) / 10;
}

async function repeat(pathname: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await timed(pathname));
  return out;
}

/** Sends INGEST_RATE events/s (batches of 100 every 50 ms, 1% dated yesterday) for `seconds`, while
 *  `beside` runs; answers the ingest requests' latency. Bounded in time and count. */
async function ingest(
  secretKey: string,
  seconds: number,
  beside: ((stop: () => boolean) => Promise<void>) | null,
): Promise<{ requests: number; failed: number; p50: number; p99: number; max: number }> {
  const times: number[] = [];
  let failed = 0;
  let n = 0;
  const tag = Math.random().toString(36).slice(2, 8);
  const started = performance.now();
  const stop = () => performance.now() - started > seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  const send = async (batch: unknown[]) => {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events: batch }),
    }).catch(() => null);
    if (!res || res.status !== 202) failed++;
    await res?.text();
    times.push(performance.now() - t0);
  };
  const load = (async () => {
    for (let tick = 0; !stop() && tick < seconds * 20 + 20; tick++) {
      const batch = Array.from({ length: INGEST_RATE / 20 }, () => {
        const i = n++;
        const visitor = `ib${tag}v${i % 5000}`;
        const late = i % 100 === 0;
        return {
          id: `ib${tag}e${i}`,
          name: i % 7 === 0 ? 'signup' : 'pageview',
          visitor,
          ts: new Date(Date.now() - (late ? DAY : 0)).toISOString(),
          page: { url: `https://shop.example.com/p${i % 40}` },
          props: { plan: ['free', 'pro', 'team'][i % 3] },
          context: { ip: '81.2.69.142', userAgent: CHROME },
        };
      });
      const p = send(batch).finally(() => inFlight.delete(p));
      inFlight.add(p);
      const next = started + (tick + 1) * 50;
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    }
    await Promise.all(inFlight);
  })();
  await Promise.all([load, beside?.(stop)]);
  times.sort((x, y) => x - y);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]! * 10) / 10;
  return { requests: times.length, failed, p50: at(0.5), p99: at(0.99), max: at(1) };
}

/** Migrates, seeds each project that has no events yet (timed: the seed leaves the rollups current),
 *  makes a read token and a fresh secret key per project. */
async function prepare(): Promise<{ token: string; keys: Map<string, string> }> {
  const db = await openDatabase({ databaseUrl, dataDir, log: createLogger('warn'), max: 2 });
  const keys = new Map<string, string>();
  try {
    await migrate(db.sql);
    for (const p of projects) {
      await createProject(db.sql, { id: p.id, name: p.id, visibility: 'private' });
      keys.set(p.id, (await rotateSecretKey(db.sql, p.id))!.secretKey);
      const [row]: [{ n: number }?] = await db.sql`select count(*)::int as n from sessions where project_id = ${p.id}`;
      if (row!.n > 0) continue;
      console.error(`seeding ${p.events} events into ${p.id} …`);
      console.error(JSON.stringify(await seedProject(db.sql, { projectId: p.id, events: p.events, embedded })));
    }
    // Days left for a writer's rebuild (a database seeded before a rollup migration) are rebuilt first, timed.
    const t0 = performance.now();
    const rebuilt = await rebuildPendingDays(db.sql);
    if (rebuilt > 0)
      console.error(`rebuilt ${rebuilt} pending days in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const { token } = await createToken(db.sql, {
      name: 'bench',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'bench',
    });
    return { token, keys };
  } finally {
    await db.close();
  }
}

async function freshDatabase(url: string): Promise<string> {
  const name = `loupe_bench_${Date.now().toString(36)}`;
  const a = postgres(url, { max: 1, onnotice: () => {} });
  await a.unsafe(`create database ${name}`);
  await a.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  console.error(`database ${u.toString()} (pass it as BENCH_DB_URL to reuse it)`);
  return u.toString();
}

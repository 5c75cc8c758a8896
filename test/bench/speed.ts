// `npm run bench:speed`: p50/p95 latency of every speed read through the real server (a child process)
// at BENCH_SPEED_SAMPLES (5,000,000) samples over 90 days in one project, shaped as the browser SDK
// sends them (one metric a row; an element for LCP, INP and CLS), after the `speed` job folded the 60
// days past the raw window and counted every finished day by route, country and element. On
// DATABASE_URL a fresh database is made; BENCH_DB_URL reuses a database this bench made; without either,
// embedded PGlite in a fresh data folder (BENCH_DATA_DIR reuses one) at 500,000 samples by default.
// BENCH_RUNS (20) warm runs follow the first request of each read.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject } from '../../src/db/projects.ts';
import { createToken } from '../../src/db/tokens.ts';
import { buildSpeedBlocks } from '../../src/jobs/speed-blocks.ts';
import { buildSpeedDims } from '../../src/jobs/speed-dims.ts';
import { foldSpeedSamples } from '../../src/jobs/speed-fold.ts';
import { createLogger } from '../../src/log.ts';
import { startServerProcess } from '../support/process.ts';

const base = process.env.DATABASE_URL;
const reuse = process.env.BENCH_DB_URL;
const embedded = !base && !reuse;
const runs = Number(process.env.BENCH_RUNS ?? 20);
const total = Number(process.env.BENCH_SPEED_SAMPLES ?? (embedded ? 500_000 : 5_000_000));
const PROJECT = 'speed-bench';
const TARGET_MS = 250;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

const databaseUrl = embedded ? undefined : (reuse ?? (await freshDatabase(base!)));
const dataDir = process.env.BENCH_DATA_DIR ?? (await mkdtemp(path.join(tmpdir(), 'loupe-bench-')));
if (embedded) console.error(`embedded data folder ${dataDir} (pass it as BENCH_DATA_DIR to reuse it)`);
const token = await prepare(databaseUrl);
const server = await startServerProcess({ databaseUrl, dataDir });

const week = `from=${new Date(today - 7 * DAY).toISOString()}&to=${new Date(today).toISOString()}`;
const p = `/v2/projects/${PROJECT}`;
const reads: [string, string][] = [
  ['speed 30d', `${p}/speed?period=30d`],
  ['speed 7d, device=mobile', `${p}/speed?period=7d&device=mobile`],
  ['speed 30d, filter country', `${p}/speed?period=30d&filter[country]=DE`],
  ['speed 30d, filter route', `${p}/speed?period=30d&filter[route]=/r/3`],
  ['speed 30d, filter country=!DE', `${p}/speed?period=30d&filter[country]=!DE`],
  ['speed 30d, filter route + page', `${p}/speed?period=30d&filter[route]=/r/3&filter[page]=/r/3/7`],
  ['speed 90d, filter country, desktop', `${p}/speed?period=90d&filter[country]=DE&device=desktop`],
  ['speed 90d (raw + folded)', `${p}/speed?period=90d`],
  ['speed/routes 30d', `${p}/speed/routes?period=30d`],
  ['speed/routes 30d, group=path', `${p}/speed/routes?period=30d&group=path`],
  ['speed/routes 90d', `${p}/speed/routes?period=90d`],
  ['speed/timeseries lcp 30d by day', `${p}/speed/timeseries?period=30d&metric=lcp`],
  ['speed/timeseries inp 7d by hour', `${p}/speed/timeseries?${week}&metric=inp&interval=hour`],
  ['speed/timeseries lcp 30d, filter route', `${p}/speed/timeseries?period=30d&metric=lcp&filter[route]=/r/3`],
  ['speed/elements lcp 30d', `${p}/speed/elements?period=30d&metric=lcp`],
  ['speed/elements inp 90d', `${p}/speed/elements?period=90d&metric=inp`],
  ['/v2/speed 30d', `/v2/speed?period=30d`],
  ['/v2/speed/routes 30d', `/v2/speed/routes?period=30d`],
];
const table: Record<string, string | number>[] = [];
try {
  for (const [name, url] of reads) {
    const c = await measure(url);
    console.error(`${name}: ${JSON.stringify(c)}`);
    table.push(
      typeof c === 'string'
        ? { read: name, first: c }
        : { read: name, ...c, target: `< ${TARGET_MS} ms p50`, ok: c.p50 < TARGET_MS ? 'ok' : 'SLOW' },
    );
  }
} finally {
  await server.kill();
}
console.log(
  `\n${total} samples over 90 days (${embedded ? 'embedded' : 'PostgreSQL'}); ${runs} warm runs each after the first request, one at a time, loopback\n`,
);
console.table(table);

async function measure(pathname: string): Promise<{ first: number; p50: number; p95: number } | string> {
  const get = () => fetch(server.url + pathname, { headers: { authorization: `Bearer ${token}` } });
  const started = performance.now();
  const probe = await get();
  const body = await probe.text();
  const first = Math.round(performance.now() - started);
  if (probe.status !== 200) return `HTTP ${probe.status}: ${body.slice(0, 80)}`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await (await get()).text();
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
  return { first, p50: at(0.5), p95: at(0.95) };
}

/** Migrates, generates the samples once (SQL, in day-sized statements), folds the old days, makes a token. */
async function prepare(url: string | undefined): Promise<string> {
  const db = await openDatabase({ databaseUrl: url, dataDir, log: createLogger('warn'), max: 2 });
  try {
    await migrate(db.sql);
    await createProject(db.sql, { id: PROJECT, name: PROJECT, visibility: 'private' });
    const [have]: [{ n: number }?] =
      await db.sql`select (select count(*) from speed_samples) + (select coalesce(sum(n), 0) from speed_days) as n`;
    if (Number(have!.n) === 0) {
      const t0 = performance.now();
      const perDay = Math.round(total / 90);
      for (let d = 90; d >= 1; d--) await generateDay(db.sql, new Date(today - d * DAY), perDay);
      await db.sql`analyze speed_samples, speed_buckets`;
      console.error(`${total} samples generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const t1 = performance.now();
      const folded = { ...(await foldSpeedSamples(db.sql, new Date())), ...(await buildSpeedDims(db.sql, new Date())) };
      console.error(`speed job: ${JSON.stringify(folded)} in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      // A live table holds ~31 days and reuses the space the job frees day by day; this one was filled with
      // 90 at once, so it is compacted to that steady state. Vacuum also sets the visibility map the
      // index-only reads rely on (autovacuum does it on a live server).
      await db.sql`vacuum (full, analyze) speed_samples`;
      await db.sql`vacuum speed_samples`; // a full vacuum leaves the visibility map unset
      await db.sql`vacuum analyze speed_days, speed_buckets, speed_dims`;
      const [size] = await db.sql`
        select pg_total_relation_size('speed_samples') as samples, pg_total_relation_size('speed_days') as days,
          pg_total_relation_size('speed_buckets') as buckets, pg_total_relation_size('speed_dims') as dims`;
      console.error(
        `sizes (tables with indexes, MB): ${JSON.stringify(
          Object.fromEntries(Object.entries(size!).map(([k, v]) => [k, Math.round(Number(v) / 1e6)])),
        )}`,
      );
    }
    // The job's route blocks (0060): built here too on a database made before them.
    const t2 = performance.now();
    const blocks = await buildSpeedBlocks(db.sql, new Date());
    await db.sql`vacuum analyze speed_route_blocks, speed_route_blocks_built`;
    const [bsize] = await db.sql`select pg_total_relation_size('speed_route_blocks') as blocks`;
    console.error(
      `route blocks: ${JSON.stringify(blocks)} in ${((performance.now() - t2) / 1000).toFixed(1)} s, ${Math.round(Number(bsize!.blocks) / 1e6)} MB`,
    );
    return (
      await createToken(db.sql, { name: 'bench', scope: 'read', projectIds: null, expiresAt: null, createdBy: 'bench' })
    ).token;
  } finally {
    await db.close();
  }
}

/** One day of SDK-shaped rows: 20 routes of 10 paths, 10 countries, three device classes, 3% bots. */
async function generateDay(sql: postgres.Sql, day: Date, count: number): Promise<void> {
  await sql`
    insert into speed_samples (project_id, ts, event_id, visitor_id, path, route, device, country, environment,
      lcp, inp, cls, fcp, ttfb, element, bot_score)
    select ${PROJECT}, ${day}::timestamptz + random() * interval '1 day', 'e' || ${day.getTime()} || '-' || i, 'v' || (i % 5000),
      '/r/' || r || '/' || (i % 10), '/r/' || r, (array['mobile', 'desktop', 'tablet', 'desktop'])[1 + i % 4],
      (array['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA', 'NL', 'ES'])[1 + (i / 7) % 10],
      case when i % 20 = 0 then 'preview' else 'production' end,
      case when m = 0 then round(600 + random() ^ 2 * 5000) end, case when m = 1 then round(16 + random() ^ 3 * 700) end,
      case when m = 2 then round((random() ^ 3 * 0.5)::numeric, 4) end, case when m = 3 then round(300 + random() ^ 2 * 3500) end,
      case when m = 4 then round(50 + random() ^ 2 * 2000) end,
      case when m <= 2 then (array['#hero', 'h1', 'main>p', 'button.buy', 'img.product'])[1 + (i / 3) % 5] end,
      case when i % 33 = 0 then 90 else 0 end
    from generate_series(1, ${count}) as i, lateral (select i % 5 as m, (i / 5) % 20 as r) as x`;
}

async function freshDatabase(url: string): Promise<string> {
  const name = `loupe_speed_bench_${Date.now().toString(36)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  console.error(`database ${u.toString()} (pass it as BENCH_DB_URL to reuse it)`);
  return u.toString();
}

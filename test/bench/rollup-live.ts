// `npm run bench:rollups`: the reads a dashboard sends against an already seeded project (BENCH_DB_URL,
// project bench-a, e.g. the database `npm run bench:query` prints), through the real server: the first
// read of each after a restart, warm p50/p99, then the same reads while ingest runs at BENCH_RATE events/s
// (2,000) of which 1% are dated yesterday, with ingest p99 beside a run of the same ingest without reads.
// Without BENCH_DB_URL it runs embedded: BENCH_DATA_DIR names a seeded data folder (else one is seeded).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject } from '../../src/db/projects.ts';
import { query } from '../../src/db/queries.ts';
import { createToken } from '../../src/db/tokens.ts';
import { createLogger } from '../../src/log.ts';
import { hashSecret, hintOf, newSecretKey } from '../../src/secrets.ts';
import { seedProject } from '../../src/seed/index.ts';
import { buildPendingRollups } from '../../src/query/rollup/builder.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

const databaseUrl = process.env.BENCH_DB_URL;
const dataDir = process.env.BENCH_DATA_DIR ?? (await mkdtemp(path.join(tmpdir(), 'loupe-rollup-bench-')));
const runs = Number(process.env.BENCH_RUNS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const rate = Number(process.env.BENCH_RATE ?? 2_000);
const P = 'bench-a';
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

const reads: [string, string][] = [
  ['stats 30d', `/v2/projects/${P}/stats?period=30d`],
  ['timeseries 30d by day', `/v2/projects/${P}/timeseries?period=30d&metric=visitors&interval=day`],
  ['breakdown page', `/v2/projects/${P}/breakdown/page?period=30d`],
  ['breakdown country, device=mobile', `/v2/projects/${P}/breakdown/country?period=30d&filter[device]=mobile`],
  ['breakdown prop:plan, event=signup', `/v2/projects/${P}/breakdown/prop:plan?period=30d&filter[event]=signup`],
  ['breakdown referrer_domain', `/v2/projects/${P}/breakdown/referrer_domain?period=30d`],
  ['breakdown utm_source', `/v2/projects/${P}/breakdown/utm_source?period=30d`],
  ['breakdown channel', `/v2/projects/${P}/breakdown/channel?period=30d`],
  ['breakdown entry_page', `/v2/projects/${P}/breakdown/entry_page?period=30d`],
  [
    'breakdown browser, country+device',
    `/v2/projects/${P}/breakdown/browser?period=30d&filter[country]=US&filter[device]=desktop`,
  ],
  ['stats today', `/v2/projects/${P}/stats?from=${iso(today)}&to=${iso(Date.now())}`],
  ['stats 90d', `/v2/projects/${P}/stats?period=90d`],
];

const { token, secretKey } = await prepare();
const env = {
  databaseUrl,
  dataDir,
  extra: {
    INGEST_SECRET_RATE_PER_SECOND: '100000',
    INGEST_SECRET_RATE_BURST: '100000',
    // The builder's pause, to compare ingest with it off (0).
    ...(process.env.ROLLUP_BUILD_MS ? { ROLLUP_BUILD_MS: process.env.ROLLUP_BUILD_MS } : {}),
  },
};
let server = await startServerProcess(env, { timeoutMs: 120_000 });
const get = async (s: ServerProcess, p: string) => {
  const t0 = performance.now();
  // A read that takes over 20 s is counted as 20 s (and said): the bench stays bounded in time.
  const res = await fetch(s.url + p, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(20_000),
  }).catch(() => null);
  if (!res) return (console.error(`${p}: over 20 s`), 20_000);
  await res.text();
  if (res.status !== 200) throw new Error(`${p}: HTTP ${res.status}`);
  return performance.now() - t0;
};
const q = (xs: number[], f: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(f * s.length))]! * 10) / 10;
};

const rows: Record<string, Record<string, number | string>> = {};
try {
  for (const [name, p] of reads) {
    rows[name] = { 'first after restart ms': Math.round(await get(server, p)) };
    console.error(`${name}: first ${rows[name]!['first after restart ms']} ms`);
  }
  for (const [name, p] of reads) {
    const times: number[] = [];
    for (let i = 0; i < runs + 2; i++) times.push(await get(server, p));
    times.splice(0, 2);
    Object.assign(rows[name]!, { 'warm p50': q(times, 0.5), 'warm p99': q(times, 0.99) });
    console.error(`${name}: warm ${JSON.stringify(rows[name])}`);
  }
  const alone = await ingest(server, seconds, false);
  console.error(`ingest alone: p99 ${q(alone.posts, 0.99)} ms`);
  const under = await ingest(server, seconds, true);
  for (const [name] of reads)
    Object.assign(rows[name]!, {
      'under ingest p50': q(under.reads.get(name)!, 0.5),
      'under ingest p99': q(under.reads.get(name)!, 0.99),
      n: under.reads.get(name)!.length,
    });
  console.table(rows);
  console.log(
    `ingest ${rate} ev/s (1% dated yesterday), ${seconds} s each: without reads p50 ${q(alone.posts, 0.5)} p99 ${q(alone.posts, 0.99)} ms ` +
      `(${alone.posts.length} posts, ${alone.failed} failed); with reads p50 ${q(under.posts, 0.5)} p99 ${q(under.posts, 0.99)} ms ` +
      `(${under.posts.length} posts, ${under.failed} failed)`,
  );
} finally {
  await server.kill();
}

/** Ingest at `rate` in posts of rate/20 events every 50 ms for `secs`; with `withReads`, the reads in a
 *  loop meanwhile, one at a time. Bounded: at most secs*20 posts. */
async function ingest(s: ServerProcess, secs: number, withReads: boolean) {
  const posts: number[] = [];
  const pending: Promise<void>[] = [];
  let failed = 0;
  let n = 0;
  const per = Math.max(1, Math.round(rate / 20));
  const send = () => {
    const events = Array.from({ length: per }, () => {
      const k = n++;
      const late = k % 100 === 0;
      return {
        id: `live-${Date.now().toString(36)}-${k}`,
        name: 'pageview',
        visitor: `live-v${k % 20_000}`,
        ts: iso(late ? today - DAY + (k % 86_000) * 1000 : Date.now() - 1000),
        page: {
          url: `https://bench.example.com/p${k % 50}?utm_source=live${k % 7}`,
          referrer: 'https://www.google.com/',
        },
        context: { ip: '81.2.69.142', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' },
      };
    });
    const t0 = performance.now();
    pending.push(
      fetch(`${s.url}/v2/ingest`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events }),
      }).then(
        async (r) => {
          await r.text();
          if (r.status === 202) posts.push(performance.now() - t0);
          else failed++;
        },
        () => void failed++,
      ),
    );
  };
  const timer = setInterval(send, 50);
  const end = performance.now() + secs * 1000;
  const times = new Map<string, number[]>(reads.map(([name]) => [name, []]));
  if (withReads) {
    while (performance.now() < end)
      for (const [name, p] of reads) if (performance.now() < end) times.get(name)!.push(await get(s, p));
  } else await new Promise((r) => setTimeout(r, secs * 1000));
  clearInterval(timer);
  await Promise.all(pending);
  return { posts, failed, reads: times };
}

/** A read token, and a fresh secret key for bench-a (seeded here first when the database has none). */
async function prepare(): Promise<{ token: string; secretKey: string }> {
  const db = await openDatabase({ databaseUrl, dataDir, log: createLogger('warn'), max: 2 });
  try {
    await migrate(db.sql);
    await createProject(db.sql, { id: P, name: P, visibility: 'private' });
    const [row]: [{ n: number }?] = await db.sql`select count(*)::int as n from sessions where project_id = ${P}`;
    if (row!.n === 0) {
      const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
      const t0 = performance.now();
      console.error(JSON.stringify(await seedProject(db.sql, { projectId: P, events, embedded: !databaseUrl })));
      console.error(
        `seeded ${events} events into ${dataDir}, rollups built, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    // What the running builder would have done before the restart.
    await buildPendingRollups(db.sql, [P]);
    const secretKey = newSecretKey();
    await query(db.sql, 'rotate_secret_key', [P, hashSecret(secretKey), hintOf(secretKey)]);
    const made = await createToken(db.sql, {
      name: 'bench',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'bench',
    });
    return { token: made.token, secretKey };
  } finally {
    await db.close();
  }
}

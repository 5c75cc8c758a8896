// `npm run bench:keys`: what the de-duplication index costs an accepted event, by the shape of event ids.
// Every accepted event's id is a key of ingest_dedup's primary key (project_id, event_id). With random ids
// (what the SDKs sent before src/sdk/ids.ts) each key lands anywhere in the index and touches a leaf page of
// its own; with time-ordered ids the keys of one flush land together near the end. Two projects of the
// real schema are filled with BENCH_KEYS (2,000,000) earlier keys each, one of each shape (the ordered ones
// spread over 30 days), then BENCH_FLUSHES (200) flushes of 1,000 new keys are COPYed as the server sends
// in one transaction each (COPY FROM STDIN of the keys sorted by id, as insert_events.sql inserts them), alternating
// between the two so drift hits both alike. It prints the time, the backend's CPU and the write-ahead log a
// key, from a CHECKPOINT on (as a server between two checkpoints).
// DATABASE_URL is required; a fresh database is made on it and dropped after.
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { migrate } from '../../src/db/migrate.ts';
import { copyLine } from '../../src/db/copy-text.ts';
import { randomId, timeOrderedId } from '../../src/sdk/ids.ts';
import { createTestDatabase } from '../support/database.ts';
import { walPosition } from './ingest-raw.ts';

if (!process.env.DATABASE_URL) {
  console.error(
    'bench:keys measures against PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).',
  );
  process.exit(2);
}
const existing = Number(process.env.BENCH_KEYS ?? 2_000_000);
const flushes = Number(process.env.BENCH_FLUSHES ?? 200);
const FLUSH = 1_000;
const DAY = 86_400_000;

type Shape = { project: string; label: string; id: (now: number) => string };
const shapes: Shape[] = [
  { project: 'random-ids', label: 'random ids (21 characters)', id: () => randomId() },
  // Clients' clocks disagree: a flush's ids come from a minute either side of the server's.
  {
    project: 'ordered-ids',
    label: 'time-ordered ids (src/sdk/ids.ts)',
    id: (now) => timeOrderedId(now + (Math.random() - 0.5) * 120_000),
  },
];

const testDb = await createTestDatabase();
const sql = postgres(testDb.databaseUrl!, { max: 1, onnotice: () => {} });
try {
  await migrate(sql);
  const start = Date.now();
  for (const shape of shapes) {
    console.error(`filling ${shape.project} with ${existing.toLocaleString('en')} keys …`);
    for (let done = 0; done < existing; done += 100_000) {
      const n = Math.min(100_000, existing - done);
      const keys = Array.from({ length: n }, (_, i) => shape.id(start - 30 * DAY + ((done + i) / existing) * 30 * DAY));
      await copyKeys(shape.project, keys);
    }
  }
  await sql`vacuum analyze ingest_dedup`;
  await sql`checkpoint`;

  const [{ pid }] = await sql<[{ pid: number }]>`select pg_backend_pid() as pid`; // the client's one connection
  const totals = new Map(shapes.map((s) => [s, { ms: 0, cpuMs: 0, wal: 0, keys: 0 }]));
  for (let i = 0; i < flushes; i++) {
    for (const shape of i % 2 === 0 ? shapes : [...shapes].reverse()) {
      const now = Date.now();
      const keys = Array.from({ length: FLUSH }, () => shape.id(now));
      const before = await walPosition(sql);
      const [t0, cpu0] = [performance.now(), cpuMs(pid)];
      await copyKeys(shape.project, keys);
      const [ms, cpu] = [performance.now() - t0, cpuMs(pid) - cpu0];
      const bytes = (await walPosition(sql)) - before;
      const total = totals.get(shape)!;
      total.ms += ms;
      total.cpuMs += cpu;
      total.wal += bytes;
      total.keys += FLUSH;
    }
  }
  const [{ size }] = await sql<
    [{ size: string }]
  >`select pg_size_pretty(pg_relation_size('ingest_dedup_pkey')) as size`;
  console.log(
    `\ningest_dedup: ${existing.toLocaleString('en')} earlier keys a project (index ${size} in all), ${flushes} flushes of ${FLUSH} new keys each\n`,
  );
  console.table(
    shapes.map((s) => {
      const t = totals.get(s)!;
      return {
        ids: s.label,
        'new keys': t.keys,
        'µs a key': round((t.ms * 1000) / t.keys),
        'backend CPU µs a key': round((t.cpuMs * 1000) / t.keys),
        'WAL B a key': Math.round(t.wal / t.keys),
      };
    }),
  );
  const [random, ordered] = shapes.map((s) => totals.get(s)!);
  console.log(
    `time-ordered ids: ${round(random!.ms / ordered!.ms)}x less time, ${round(random!.cpuMs / ordered!.cpuMs)}x less backend CPU and ${round(random!.wal / ordered!.wal)}x less WAL a key`,
  );
} finally {
  await sql.end();
  await testDb.drop();
}

/** Stores `keys` in ingest_dedup, sorted by id (by code point, as insert_events.sql orders them). */
async function copyKeys(project: string, keys: string[]): Promise<void> {
  const ts = new Date().toISOString();
  const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await sql.begin(async (tx) => {
    const writable = await tx`copy ingest_dedup (project_id, event_id, ts) from stdin`.writable();
    await new Promise<void>((resolve, reject) => {
      writable.once('error', reject);
      writable.once('finish', resolve);
      writable.end(sorted.map((id) => `${copyLine([project, id, ts])}\n`).join(''));
    });
  });
}

/** utime + stime of a PostgreSQL backend, in ms (Linux clock ticks: summed over many flushes). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

// `npm run bench:ingest:flush`: what one group commit costs, by its size, on PostgreSQL: flushes of 1 to 1,500
// events, one after another on an otherwise idle machine, through the flush plan (src/db/flush-plan.ts)
// executed several ways in the same run, taken in turn at each size so the machine's drift hits all alike:
// - `writer`: what the server does on PostgreSQL by default: the plan as one pipeline of the flush writer
//   (src/db/wire/flush-executor.ts), the keys and events by COPY inside it, one write and one answer;
// - `copy stream`: what it does with FLUSH_WRITER=client: the keys and the events by the `postgres`
//   client's own COPY stream (sql`copy … from stdin`.writable()), the steps before them sent with BEGIN
//   and those after them with COMMIT (src/db/flush-executor.ts);
// - `statements`: what it does on embedded PGlite, here on PostgreSQL: every step a statement, the events
//   as the same text in one parameter (insert_events.sql), the whole plan sent before any answer;
// - `baseline`: with BENCH_BASELINE=<folder of an earlier checkout>, that tree's own event store (for the
//   tree before the one flush path: its two write paths), to compare against in the same run.
// It prints the wall time, this process's CPU (the server's share: statements, row text, journal body) and
// PostgreSQL's CPU (backends, WAL writer, checkpointer) a flush and an event: the fixed cost of a flush
// against the cost of its events, without the end-to-end run's noise. DATABASE_URL is required;
// BENCH_SECONDS (3) is the time given to each size and way, BENCH_SIZES (1,10,100,500,1500) the flush sizes,
// BENCH_WAYS (all) a comma-separated choice of ways. Events are the bodies of `npm run bench:ingest`,
// validated, enriched and sessionized beforehand (not timed); each flush writes one `Accepted` line per 50
// events, as batches do.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../../src/db/client.ts';
import { createEventStore } from '../../src/db/event-store.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createWireExecutor } from '../../src/db/wire/flush-executor.ts';
import { createProject } from '../../src/db/projects.ts';
import { enrich, type EnrichedEvent } from '../../src/ingest/enrich.ts';
import { readEnvelope, validateEvent } from '../../src/ingest/event-schema.ts';
import { createLogger } from '../../src/log.ts';
import type { ActorStore, PendingLog } from '../../actors/project-actor.ts';
import { createTestDatabase } from '../support/database.ts';
import { createCpuMeter } from './cpu-meter.ts';
import { bodies, makeTemplates, makeVisitors } from './ingest-events.ts';
import { serverSteps } from './server-steps.ts';

if (!process.env.DATABASE_URL) {
  console.error(
    'bench:ingest:flush measures against PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test).',
  );
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const SIZES = process.env.BENCH_SIZES?.split(',').map(Number) ?? [1, 10, 100, 500, 1_500];

const WAYS = process.env.BENCH_WAYS?.split(',') ?? ['baseline', 'writer', 'copy stream', 'statements'];

const testDb = await createTestDatabase();
const db = await openDatabase({
  databaseUrl: testDb.databaseUrl,
  dataDir: testDb.dataDir,
  log: createLogger('silent'),
  max: 2,
});
const closers: (() => Promise<void>)[] = [];
try {
  await migrate(db.sql);
  await createProject(db.sql, { id: 'bench', name: 'bench', visibility: 'private' });
  const stores: Record<string, Pick<ActorStore, 'commit'>> = {};
  for (const way of WAYS) {
    if (way === 'writer') {
      const wire = createWireExecutor(db.sql);
      closers.push(wire.close);
      stores[way] = createEventStore(db.sql, { owner: 'bench-flush', writer: wire.run });
    } else if (way === 'copy stream') stores[way] = createEventStore(db.sql, { owner: 'bench-flush' });
    else if (way === 'statements') stores[way] = createEventStore(db.sql, { owner: 'bench-flush', embedded: true });
    else if (way === 'baseline' && process.env.BENCH_BASELINE)
      stores[way] = await baselineStore(process.env.BENCH_BASELINE);
  }
  await createEventStore(db.sql, { owner: 'bench-flush' }).ensurePartition(new Date());
  const { lookups, facts, place } = await serverSteps('bench');
  const meter = createCpuMeter(process.pid, db.sql);
  const visitors = makeVisitors(5_000);

  const rows: Record<string, Record<string, number | string>> = {};
  for (const [mix, errors] of [
    ['plain', 0],
    ['20% errors', 0.2],
  ] as const) {
    // Ids never sent before, in each way and mix: a repeated id would be a duplicate, and store nothing.
    const makers = Object.fromEntries(
      Object.keys(stores).map((way) => {
        const next = bodies(makeTemplates(400, 50, visitors, { errors }), `${way}-${mix === 'plain' ? 'p' : 'e'}`);
        const events = (n: number): EnrichedEvent[] => {
          const out: EnrichedEvent[] = [];
          while (out.length < n) {
            const envelope = readEnvelope(JSON.parse(next()));
            if (!envelope.ok) throw new Error(envelope.message);
            for (const raw of envelope.events.slice(0, n - out.length)) {
              const checked = validateEvent(raw, 0);
              if (!checked.ok) throw new Error(`a bench event does not validate: ${checked.rejection.message}`);
              const row = enrich(checked.event, facts, lookups);
              place(row);
              out.push(row);
            }
          }
          return out;
        };
        return [way, events];
      }),
    );
    for (const n of SIZES)
      for (const [way, store] of Object.entries(stores)) {
        const flush = (batch: EnrichedEvent[]) =>
          store.commit('bench', batch, (inserted) => ({
            logs: Array.from({ length: Math.ceil(batch.length / 50) }, (): PendingLog => ({
              level: 'ok',
              kind: 'ingest',
              source: 'api',
              visitor: null,
              session: null,
              message: `Accepted ${inserted.size} events`,
              data: { accepted: inserted.size },
            })),
            counters: { accepted: inserted.size, duplicates: 0, rejected: 0, rateLimited: 0 },
          }));
        // Made ahead: enough for the time given at about 40 µs a flushed event and 1 ms a flush, plus three to warm up.
        const batches = Array.from({ length: 3 + Math.ceil((seconds * 1e6) / (n * 40 + 1_000)) }, () =>
          makers[way]!(n),
        );
        for (const b of batches.splice(0, 3)) await flush(b);
        const before = await meter.sample();
        const client = process.cpuUsage();
        const started = performance.now();
        let flushes = 0;
        for (const b of batches) {
          await flush(b);
          flushes++;
          if (performance.now() - started > seconds * 1_000) break;
        }
        const wallMs = performance.now() - started;
        const after = await meter.sample();
        const used = process.cpuUsage(client);
        const clientMs = (used.user + used.system) / 1e3;
        const dbMs = (after.database - before.database) * 1e3;
        const backendsMs = (after.backends - before.backends) * 1e3;
        rows[`${way}, ${mix}, ${n}`] = {
          flushes,
          'wall ms/flush': round(wallMs / flushes, 2),
          'server ms/flush': round(clientMs / flushes, 2),
          'db ms/flush': round(dbMs / flushes, 2),
          'server µs/ev': round((clientMs * 1e3) / (flushes * n), 1),
          'db µs/ev': round((dbMs * 1e3) / (flushes * n), 1),
          'backends µs/ev': round((backendsMs * 1e3) / (flushes * n), 1),
          'both µs/ev': round(((clientMs + dbMs) * 1e3) / (flushes * n), 1),
          'server+backends µs/ev': round(((clientMs + backendsMs) * 1e3) / (flushes * n), 1),
        };
      }
  }
  console.log(
    `One flush after another, ${seconds} s a size and way (${Object.keys(stores).join(', ')}); server = this process (statements, row text, journal), db = PostgreSQL's backends and WAL writer, checkpointer and background writer (shared with other databases), backends = this database's alone`,
  );
  console.table(rows);
} finally {
  for (const close of closers) await close();
  await db.close();
  await testDb.drop();
}

/** An earlier tree's event store, as its server made it (with its flush writer when it had one). */
async function baselineStore(folder: string): Promise<Pick<ActorStore, 'commit'>> {
  const from = (file: string) => import(pathToFileURL(path.resolve(folder, file)).href);
  const { createEventStore: create } = await from('src/db/event-store.ts');
  try {
    const { WRITER_SESSION, WRITER_STATEMENTS } = await from('src/db/speculative-flush.ts');
    const { createWriterPool, writerOptions } = await from('src/db/wire/pool.ts');
    const writer = createWriterPool(writerOptions(db.sql, WRITER_SESSION), WRITER_STATEMENTS);
    closers.push(() => writer.close());
    return create(db.sql, { owner: 'bench-baseline', writer });
  } catch {
    return create(db.sql, { owner: 'bench-baseline' });
  }
}

function round(x: number, digits: number): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

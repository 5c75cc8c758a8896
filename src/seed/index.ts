// Seeds a project with realistic synthetic traffic: events, with the sessions, visitors and speed
// samples they imply, written in batches in the flush's text form (COPY on PostgreSQL, the flush's own
// statements on PGlite), and the issues its errors open.
// Writes straight to the tables, bypassing ingest: meant for benchmarks, demos and tests.
import type { Sql } from 'postgres';
import { generateTraffic } from './generate.ts';
import { SeedIssues } from './issues.ts';
import { copyWriter, statementWriter } from './writers.ts';
import { dayMarks, markRollupDaysStale } from '../db/rollup-marks.ts';
import { ensureRollups, nextDay } from '../query/rollup/build.ts';
import { warmKeptValues } from '../query/rollup/warm.ts';

export type SeedOptions = {
  projectId: string;
  events: number;
  /** Days of traffic ending now (default 90). */
  days?: number;
  now?: Date;
  /** Same seed, same traffic (ids aside, which carry a run id so runs can be added to one project). */
  seed?: number;
  /** COPY needs real PostgreSQL; embedded PGlite takes batched inserts. */
  embedded: boolean;
};
export type SeedResult = { project: string; events: number; sessions: number; visitors: number; seconds: number };

const BATCH_EVENTS = 50_000;
const MONTH_MS = 28 * 86_400_000;

export async function seedProject(sql: Sql, opts: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const days = opts.days ?? 90;
  const now = opts.now ?? new Date();
  await ensurePartitions(sql, new Date(now.getTime() - (days + 1) * 86_400_000), now);
  const writer = opts.embedded ? statementWriter(sql, opts.projectId) : copyWriter(sql, opts.projectId);
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}_`;
  const totals = { events: 0, sessions: 0, visitors: 0 };
  let pending: Promise<void> = Promise.resolve();
  let sinceYield = 0;
  const issues = new SeedIssues();
  for (const v of generateTraffic({ events: opts.events, days, now, seed: opts.seed ?? 1, runId })) {
    issues.attach(v);
    writer.add(v);
    totals.visitors++;
    totals.sessions += v.sessions.length;
    for (const s of v.sessions) totals.events += s.events.length;
    if (writer.size >= BATCH_EVENTS) {
      await pending;
      pending = writer.flush();
      pending.catch(() => {}); // awaited below; this only keeps it from counting as unhandled meanwhile
    }
    // Let the socket carry the batch in flight while the next one is generated.
    if (++sinceYield === 2_000) {
      sinceYield = 0;
      await new Promise((r) => setImmediate(r));
    }
  }
  await pending;
  await writer.flush();
  await issues.write(sql, opts.projectId);
  // The rows bypass the flush, so the days they fall in are marked for the rollups here.
  const span = Array.from({ length: days + 3 }, (_, i) =>
    new Date(now.getTime() + (i - days - 1) * 86_400_000).toISOString(),
  );
  await markRollupDaysStale(sql, opts.projectId, dayMarks(span));
  // Statistics for every table the rows went into (speed_buckets through speed_samples' trigger): the
  // reads' plans depend on them, and autovacuum may be off or not yet round to them. Without them the
  // speed reads chose a scan of a month of samples over the per-metric index: 0.8 s a read at 10M.
  // The events are vacuumed too, as a bulk load should be: their covering index answers a read alone
  // only for pages the visibility map calls all-visible (raw stats over a day of 142k events: 205 ms
  // before, 75 ms after), and a vacuum of rows only inserted reads just the pages written since the last.
  await sql`vacuum (analyze) events`;
  await sql`analyze sessions, visitors, issues, speed_samples, speed_buckets`;
  // Built before it returns, so no read over the seeded days finds them pending (reads never build);
  // today too once it began 5 minutes ago, the builder's grace for flushes stamped before midnight.
  const upto = new Date(Date.now() - 5 * 60_000).toISOString().slice(0, 10);
  const first = span[0]!.slice(0, 10);
  if (first <= upto) await ensureRollups(sql, [opts.projectId], first, nextDay(upto));
  await warmKeptValues(sql, opts.projectId);
  return { project: opts.projectId, ...totals, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** Every monthly events partition the span touches exists before the first row arrives. */
async function ensurePartitions(sql: Sql, from: Date, to: Date): Promise<void> {
  for (let t = from.getTime(); t < to.getTime() + MONTH_MS; t += MONTH_MS) {
    const at = new Date(Math.min(t, to.getTime()));
    await sql`select loupe_ensure_events_partition(${at})`;
  }
}

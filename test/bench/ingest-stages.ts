// `npm run bench:ingest:stages`: what each step of the server's ingest path costs per event, in this
// process, with no network and no database: body parse, validation, enrichment, sessionizing, the
// events' rows in the flush's text form, the flush's journal row (its session and visitor deltas and their JSON) and issue deltas, and the
// realtime window; and all of them taken in turn, body by body, as the server does. The same bodies as
// `npm run bench:ingest` (plain batches of 50, and the 20%-error mix).
// It tells where the server's µs per event go, quickly and with less noise than the end-to-end run; it is
// not a substitute for it. BENCH_SECONDS (3) is the time given to each step, in BENCH_ROUNDS (6) turns
// taken in rotation with the other steps; each figure is the step's fastest turn, which a neighbour taking
// the machine's CPU for a while (these VMs drift by half within minutes) cannot make slower, only rarer.
import { performance } from 'node:perf_hooks';
import { eventRows } from '../../src/db/flush-text.ts';
import { journalRow } from '../../src/db/fold-journal.ts';
import { issueDeltas } from '../../actors/issue-deltas.ts';
import { enrich } from '../../src/ingest/enrich.ts';
import { readEnvelope, validateEvent, type IngestEvent } from '../../src/ingest/event-schema.ts';
import { bodies, makeTemplates, makeVisitors } from './ingest-events.ts';
import { serverSteps } from './server-steps.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const BATCH = 50;

const { lookups, facts, place, recordRealtime } = await serverSteps('0b6f7c1e-0000-4000-8000-000000000001');
const visitors = makeVisitors(5_000);

type Step = () => number;

/** A step that, each time it is called, runs `step` over the inputs round-robin for one turn; answers µs per event. */
function measure<T>(inputs: T[], eventsOf: (x: T) => number, step: (x: T) => unknown): Step {
  let i = 0;
  return () => {
    let events = 0;
    const until = performance.now() + (seconds * 1_000) / rounds;
    const start = performance.now();
    while (performance.now() < until) {
      for (let k = 0; k < 20; k++) {
        const x = inputs[i++ % inputs.length]!;
        step(x);
        events += eventsOf(x);
      }
    }
    return ((performance.now() - start) * 1_000) / events;
  };
}

/** Each step's fastest turn, the turns taken in rotation. */
function fastest(steps: Record<string, Step>): Record<string, number> {
  const best: Record<string, number> = Object.fromEntries(Object.keys(steps).map((k) => [k, Infinity]));
  for (let r = 0; r < rounds; r++)
    for (const [name, step] of Object.entries(steps)) best[name] = Math.min(best[name]!, step());
  return best;
}

const results: Record<string, Record<string, string>> = {};
for (const [mix, errors] of [
  ['plain batches', 0],
  ['20% errors', 0.2],
] as const) {
  const next = bodies(makeTemplates(400, BATCH, visitors, { errors }), mix[0]!);
  const texts = Array.from({ length: 400 }, next);
  const parsed = texts.map((t) => readEnvelope(JSON.parse(t)) as { ok: true; events: unknown[] });
  // As the server: the walk for text PostgreSQL cannot store only where the body holds a \u escape (body.ts).
  const escapes = texts.map((t) => t.includes('\\u'));
  const valid = parsed.map((b) =>
    b.events.map((raw, i) => {
      const r = validateEvent(raw, i);
      if (!r.ok) throw new Error(`the bench body does not validate: ${r.rejection.message}`);
      return r.event;
    }),
  );
  const enriched = valid.map((events) => events.map((e) => enrich(e, facts, lookups)));
  for (const rows of enriched) for (const r of rows) place(r);
  const n = (xs: unknown[]) => xs.length;
  const { 'in turn': inTurn, ...row } = fastest({
    'JSON.parse': measure(
      texts,
      () => BATCH,
      (t) => JSON.parse(t),
    ),
    validate: measure(
      parsed.map((b, i) => ({ ...b, escapes: escapes[i]! })),
      (b) => b.events.length,
      (b) => b.events.forEach((raw, i) => validateEvent(raw, i, b.escapes)),
    ),
    enrich: measure(valid, n, (events: IngestEvent[]) => events.map((e) => enrich(e, facts, lookups))),
    sessionize: measure(enriched, n, (rows) => rows.forEach(place)),
    'event rows': measure(enriched, n, (rows) => eventRows('bench', rows)),
    'journal row': measure(enriched, n, (rows) => journalRow(rows, null)),
    'issue deltas': measure(enriched, n, (rows) => issueDeltas(rows)),
    realtime: measure(enriched, n, (rows) => rows.forEach(recordRealtime)),
    // Every step of a body before the next body, as the server takes them: against the total, what taking
    // the steps one after another costs (caches, branch history) over each one in a tight loop.
    'in turn': measure(
      texts,
      () => BATCH,
      (t) => {
        const body = readEnvelope(JSON.parse(t)) as { ok: true; events: unknown[] };
        const escaped = t.includes('\\u');
        const rows = body.events.map((raw, i) =>
          enrich((validateEvent(raw, i, escaped) as { ok: true; event: IngestEvent }).event, facts, lookups),
        );
        rows.forEach(place);
        eventRows('bench', rows);
        journalRow(rows, null);
        issueDeltas(rows);
        rows.forEach(recordRealtime);
      },
    ),
  });
  const total = Object.values(row).reduce((a, b) => a + b, 0);
  results[mix] = Object.fromEntries(
    Object.entries({ ...row, total, 'in turn': inTurn! }).map(([k, us]) => [k, us.toFixed(2)]),
  );
}
console.log(
  `µs per event of each server step, its fastest of ${rounds} turns (${seconds} s a step), in one process (no network, no database)`,
);
console.table(results);

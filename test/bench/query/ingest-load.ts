// The ingest half of `bench:query`'s last condition: POST /v2/ingest with a project's secret key at a
// steady rate (open loop: requests leave on schedule whether or not earlier ones answered), a share of
// the events dated yesterday as a late browser queue sends them, for a bounded time.
import { bodies, makeTemplates, makeVisitors } from '../ingest-events.ts';
import { percentile } from './timing.ts';

export type IngestLoad = { url: string; secretKey: string; eventsPerSecond: number; lateShare: number; batch: number };
export type IngestResult = {
  requests: number;
  events: number;
  late: number;
  /** Responses by status (`error` for a socket failure or timeout). */
  statuses: Record<string, number>;
  /** Requests not sent because `MAX_IN_FLIGHT` were waiting: the server fell that far behind. */
  skipped: number;
  /** Every request's time to its answer, ms, sorted. */
  times: number[];
  seconds: number;
};

const MAX_IN_FLIGHT = 200;
const TICK_MS = 10;
const DAY = 86_400_000;

/** Runs the load until `seconds` have passed and `more` (when given) answers false, then waits (at most
 *  30 s) for the answers in flight. */
export async function runIngest(
  load: IngestLoad,
  seconds: number,
  prefix: string,
  more: () => boolean = () => false,
): Promise<IngestResult> {
  const next = bodies(makeTemplates(64, load.batch, makeVisitors(4_000), { errors: 0 }), prefix);
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let inFlight = 0;
  let sent = 0;
  let skipped = 0;
  let late = 0;
  const pending = new Set<Promise<void>>();
  const send = () => {
    const events = (JSON.parse(next()) as { events: Record<string, unknown>[] }).events;
    const yesterday = Math.floor(Date.now() / DAY) * DAY - DAY;
    for (const e of events) {
      if (Math.random() >= load.lateShare) continue;
      e.ts = new Date(yesterday + Math.floor(Math.random() * DAY)).toISOString();
      late++;
    }
    const t0 = performance.now();
    inFlight++;
    const p = fetch(`${load.url}/v2/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${load.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
      signal: AbortSignal.timeout(30_000),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      })
      .catch(() => {
        statuses.error = (statuses.error ?? 0) + 1;
      })
      .finally(() => {
        times.push(performance.now() - t0);
        inFlight--;
        pending.delete(p);
      });
    pending.add(p);
  };
  const started = performance.now();
  const perMs = load.eventsPerSecond / load.batch / 1000;
  while (performance.now() - started < seconds * 1000 || more()) {
    // Catch up on every request due by now, so a late tick does not lower the rate.
    const due = Math.floor((performance.now() - started) * perMs);
    while (sent + skipped < due) {
      if (inFlight >= MAX_IN_FLIGHT) skipped++;
      else {
        send();
        sent++;
      }
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 30_000))]);
  times.sort((a, b) => a - b);
  return { requests: sent, events: sent * load.batch, late, statuses, skipped, times, seconds: elapsed };
}

/** Rounds of one kind taken as one run: counts added, times pooled. */
export function pooled(runs: IngestResult[]): IngestResult {
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [k, n] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
  const sum = (f: (r: IngestResult) => number) => runs.reduce((s, r) => s + f(r), 0);
  return {
    requests: sum((r) => r.requests),
    events: sum((r) => r.events),
    late: sum((r) => r.late),
    statuses,
    skipped: sum((r) => r.skipped),
    times: runs.flatMap((r) => r.times).sort((a, b) => a - b),
    seconds: sum((r) => r.seconds),
  };
}

export const quantile = (r: IngestResult, q: number) => percentile(r.times, q);

// One size on one backend through the four conditions a dashboard meets: the first read after `cli seed`,
// the first after a restart, every read warm, and every read while ingest runs (beside the same ingest
// without reads, just before). The server is the real one, a child process (test/support/process.ts).
import { startServerProcess, type ServerEnv, type ServerProcess } from '../../support/process.ts';
import { pooled, quantile, runIngest, type IngestLoad, type IngestResult } from './ingest-load.ts';
import type { Read } from './reads.ts';
import { storageSummary, type ReadRow } from './report.ts';
import { cliSeed, credentials, isSeeded, storage } from './setup.ts';
import { cell, timeGet, timeRuns, type Cell, type Client, type Sample } from './timing.ts';
import { loadAverage } from '../kept-database.ts';

export type Plan = {
  env: ServerEnv;
  projectId: string;
  events: number;
  reads: Read[];
  runs: number;
  readBudgetMs: number;
  timeoutMs: number;
  ingest: Omit<IngestLoad, 'url' | 'secretKey'>;
  /** Seconds of each kind of ingest (alone, with every read, with the dashboard's reads: the list less its
   *  comparisons), split into `ingestRounds` alternating rounds. */
  ingestSeconds: number;
  ingestRounds: number;
  /** The server's port; a free one when absent. */
  port?: number;
};
export type Outcome = {
  rows: ReadRow[];
  alone: IngestResult;
  withReads: IngestResult;
  withDashboardReads: IngestResult;
  notes: string[];
};

const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

export async function runPlan(plan: Plan): Promise<Outcome> {
  const notes = [`load average at start ${loadAverage()}`];
  const reused = await isSeeded(plan.env, plan.projectId);
  if (reused) notes.push(`${plan.projectId} already seeded: reused, no first read after \`cli seed\``);
  else {
    log(`cli seed --project ${plan.projectId} --events ${plan.events} …`);
    const seeded = await cliSeed(plan.env, plan.projectId, plan.events, 3 * 3_600_000);
    notes.push(`cli seed: ${JSON.stringify(seeded.result)}, ${seeded.seconds.toFixed(0)} s wall`);
    // Before any ingest: the storage at the end counts the events the ingest rounds add to today, which
    // the rollups hold in one day's rows, so its share of the events is lower than a seeded site's.
    notes.push(`storage after the seed: ${storageSummary(await storage(plan.env))}`);
  }
  const { token, secretKey } = await credentials(plan.env, plan.projectId);
  const path = (r: Read) => () => r.path(plan.projectId);
  const firsts = async (server: ServerProcess, what: string): Promise<Sample[]> => {
    const client: Client = { url: server.url, token, timeoutMs: plan.timeoutMs };
    const out: Sample[] = [];
    for (const r of plan.reads) {
      out.push(await timeGet(client, path(r)()));
      log(`${what} ${r.name}: ${out.at(-1)!.ms.toFixed(1)} ms ${out.at(-1)!.error ?? ''}`);
    }
    return out;
  };

  let server = await startServerProcess(plan.env, { port: plan.port });
  const afterSeed = reused ? null : await firsts(server, 'first after seed');
  await server.kill();
  server = await startServerProcess(plan.env, { port: plan.port });
  try {
    const afterRestart = await firsts(server, 'first after restart');
    const client: Client = { url: server.url, token, timeoutMs: plan.timeoutMs };
    const warm: Cell[] = [];
    for (const r of plan.reads) {
      warm.push(cell(await timeRuns(client, path(r), plan.runs, plan.readBudgetMs)));
      log(`warm ${r.name}: ${JSON.stringify(warm.at(-1))}`);
    }
    const ingest = { ...plan.ingest, url: server.url, secretKey };
    // Event ids unique to this run, so a reused database does not take them for duplicates.
    const tag = Date.now().toString(36).slice(-5);
    // The first seconds of ingest after a start pay for cold paths (connections, caches): not measured.
    await runIngest(ingest, Math.min(5, plan.ingestSeconds), `${tag}w`);
    // Alone and with reads alternate, round by round, so the machine's drift falls on each kind alike.
    const alone: IngestResult[] = [];
    const beside: IngestResult[] = [];
    const besideDashboard: IngestResult[] = [];
    const busy = plan.reads.map(() => [] as Sample[]);
    const dashboard = plan.reads.flatMap((r, i) => (r.comparison ? [] : [i]));
    const every = plan.reads.map((_, i) => i);
    const cursor = { every: 0, dashboard: 0 };
    const perRound = plan.ingestSeconds / plan.ingestRounds;
    // Through `list`, where its last run stopped, while the load runs; a read outlasting it still counts.
    // With `untilTimed`, it goes on (at most as long again as all rounds) until every read was timed once.
    const besideReads = async (list: number[], at: keyof typeof cursor, key: string, untilTimed: boolean) => {
      const end = performance.now() + perRound * 1000;
      const cap = end + plan.ingestSeconds * 1000;
      const untimed = () => untilTimed && performance.now() < cap && busy.some((b) => b.length === 0);
      let reading = true;
      const ingesting = runIngest(ingest, perRound, key, () => reading);
      while (performance.now() < end || untimed()) {
        const i = list[cursor[at]++ % list.length]!;
        busy[i]!.push(await timeGet(client, path(plan.reads[i]!)()));
      }
      reading = false;
      return ingesting;
    };
    for (let round = 0; round < plan.ingestRounds; round++) {
      const last = round === plan.ingestRounds - 1;
      alone.push(await runIngest(ingest, perRound, `${tag}a${round}`));
      beside.push(await besideReads(every, 'every', `${tag}b${round}`, last));
      besideDashboard.push(await besideReads(dashboard, 'dashboard', `${tag}d${round}`, false));
      const p99 = (r: IngestResult[]) => quantile(r.at(-1)!, 0.99).toFixed(0);
      log(
        `ingest round ${round + 1}/${plan.ingestRounds}: p99 alone ${p99(alone)} ms, with every read ${p99(beside)} ms, ` +
          `with the dashboard's ${p99(besideDashboard)} ms`,
      );
    }
    notes.push(`load average at end ${loadAverage()}`);
    const rows: ReadRow[] = plan.reads.map((r, i) => ({
      name: r.name,
      afterSeed: reused ? 'reused' : afterSeed![i]!,
      afterRestart: afterRestart[i]!,
      warm: warm[i]!,
      underIngest: cell(busy[i]!),
    }));
    return {
      rows,
      alone: pooled(alone),
      withReads: pooled(beside),
      withDashboardReads: pooled(besideDashboard),
      notes,
    };
  } finally {
    await server.kill();
  }
}

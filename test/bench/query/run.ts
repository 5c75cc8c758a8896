// One size on one backend through the four conditions a dashboard meets: the first read after `cli seed`,
// the first after a restart, every read warm, and every read while ingest runs (beside the same ingest
// without reads, just before). The server is the real one, a child process (test/support/process.ts).
import { loadavg } from 'node:os';
import { startServerProcess, type ServerEnv, type ServerProcess } from '../../support/process.ts';
import { runIngest, type IngestLoad, type IngestResult } from './ingest-load.ts';
import type { Read } from './reads.ts';
import type { ReadRow } from './report.ts';
import { cliSeed, credentials, isSeeded } from './setup.ts';
import { cell, timeGet, timeRuns, type Cell, type Client, type Sample } from './timing.ts';

export type Plan = {
  env: ServerEnv;
  projectId: string;
  events: number;
  reads: Read[];
  runs: number;
  readBudgetMs: number;
  timeoutMs: number;
  ingest: Omit<IngestLoad, 'url' | 'secretKey'>;
  ingestSeconds: number;
};
export type Outcome = { rows: ReadRow[]; alone: IngestResult; withReads: IngestResult; notes: string[] };

const log = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

export async function runPlan(plan: Plan): Promise<Outcome> {
  const notes = [`load average at start ${load()}`];
  const reused = await isSeeded(plan.env, plan.projectId);
  if (reused) notes.push(`${plan.projectId} already seeded: reused, no first read after \`cli seed\``);
  else {
    log(`cli seed --project ${plan.projectId} --events ${plan.events} …`);
    const seeded = await cliSeed(plan.env, plan.projectId, plan.events, 3 * 3_600_000);
    notes.push(`cli seed: ${JSON.stringify(seeded.result)}, ${seeded.seconds.toFixed(0)} s wall`);
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

  let server = await startServerProcess(plan.env);
  const afterSeed = reused ? null : await firsts(server, 'first after seed');
  await server.kill();
  server = await startServerProcess(plan.env);
  try {
    const afterRestart = await firsts(server, 'first after restart');
    const client: Client = { url: server.url, token, timeoutMs: plan.timeoutMs };
    const warm: Cell[] = [];
    for (const r of plan.reads) {
      warm.push(cell(await timeRuns(client, path(r), plan.runs, plan.readBudgetMs)));
      log(`warm ${r.name}: ${JSON.stringify(warm.at(-1))}`);
    }
    const ingest = { ...plan.ingest, url: server.url, secretKey };
    // The first seconds of ingest after a start pay for cold paths (connections, caches): not measured.
    await runIngest(ingest, Math.min(5, plan.ingestSeconds), 'qw');
    log(`ingest alone ${plan.ingestSeconds} s …`);
    const alone = await runIngest(ingest, plan.ingestSeconds, 'qa');
    log(`ingest alone: ${JSON.stringify(alone)}`);
    const busy = plan.reads.map(() => [] as Sample[]);
    const ingesting = runIngest(ingest, plan.ingestSeconds, 'qb');
    const end = performance.now() + plan.ingestSeconds * 1000;
    // Round after round through the list while the load runs; a read that outlasts the load still counts.
    while (performance.now() < end)
      for (const [i, r] of plan.reads.entries()) {
        if (performance.now() >= end) break;
        busy[i]!.push(await timeGet(client, path(r)()));
      }
    const withReads = await ingesting;
    log(`ingest with reads: ${JSON.stringify(withReads)}`);
    notes.push(`load average at end ${load()}`);
    const rows: ReadRow[] = plan.reads.map((r, i) => ({
      name: r.name,
      afterSeed: reused ? 'reused' : afterSeed![i]!,
      afterRestart: afterRestart[i]!,
      warm: warm[i]!,
      underIngest: cell(busy[i]!),
    }));
    return { rows, alone, withReads, notes };
  } finally {
    await server.kill();
  }
}

// `npm run fuzz`: the fuzzer against a fresh test server (PostgreSQL with DATABASE_URL, else embedded),
// bounded by FUZZ_REQUESTS (default 3000) and FUZZ_SECONDS (default 60); FUZZ_SEED replays a run. Prints
// the requests sent and the statuses seen, then every 5xx; exits 1 when there was one.
import { startTestServer } from '../support/server.ts';
import { fuzz } from './fuzzer.ts';
import { CRON_SECRET, prepareTarget } from './target.ts';

const requests = Number(process.env.FUZZ_REQUESTS ?? 3000);
const seconds = Number(process.env.FUZZ_SECONDS ?? 60);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

const s = await startTestServer({ cronSecret: CRON_SECRET, ingestRate: { capacity: 1e6, refillPerSecond: 1e6 } });
try {
  const report = await fuzz(await prepareTarget(s), { requests, seconds, seed });
  console.log(JSON.stringify({ seed, sent: report.sent, ms: report.ms, statuses: report.statuses }));
  for (const x of report.timeouts) console.log(JSON.stringify({ timeout: x }));
  for (const f of report.failures) console.log(JSON.stringify(f));
  process.exitCode = report.failures.length > 0 ? 1 : 0;
} finally {
  await s.close();
}

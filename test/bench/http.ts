// `npm run bench:http`: requests a second of an authenticated cheap read through the real Loupe server
// (GET /v2/projects/{id} with a Bearer admin token) beside a bare uWebSockets.js handler, same settings,
// each server in its own child process so autocannon here does not steal its event loop.
// BENCH_SECONDS, BENCH_CONNECTIONS tune the run; BENCH_WORKERS=<n> spreads autocannon over worker threads
// (one autocannon thread caps near 50k req/s on a 2-core box); BENCH_CPU_PROF=<dir> profiles the Loupe child.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const workers = Number(process.env.BENCH_WORKERS ?? 0);
const serverScript = new URL('./http-server.ts', import.meta.url).pathname;

type Target = { url: string; path: string; token?: string };
type Figures = { name: string; rps: number; p50: number; p99: number; requests: number; errors: number; cpuUs: number };

const bare = await measure('bare uWS', 'bare');
const loupe = await measure('loupe', 'loupe', process.env.BENCH_CPU_PROF);
const ratio = loupe.rps / bare.rps;

console.log(
  `\n${connections} connections, ${seconds} s, pipelining 1, loopback, ${workers || 'no'} autocannon workers\n`,
);
console.table(
  [bare, loupe].map((f) => ({
    server: f.name,
    'req/s': Math.round(f.rps),
    'p50 ms': f.p50,
    'p99 ms': f.p99,
    requests: f.requests,
    'errors/non-2xx': f.errors,
    'server CPU µs/req': Number(f.cpuUs.toFixed(1)),
  })),
);
console.log(`ratio loupe / bare: ${ratio.toFixed(2)} (target >= 0.50) ${ratio >= 0.5 ? 'ok' : 'BELOW TARGET'}`);
if (bare.errors + loupe.errors > 0) process.exitCode = 1;

async function measure(name: string, mode: 'bare' | 'loupe', cpuProf?: string): Promise<Figures> {
  const child = spawn(
    process.execPath,
    ['--import=tsx', ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), serverScript, mode],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  try {
    const target = await firstLine(child);
    const opts = {
      url: target.url + target.path,
      headers: (target.token ? { authorization: `Bearer ${target.token}` } : {}) as Record<string, string>,
      connections,
      pipelining: 1,
      ...(workers > 0 ? { workers } : {}),
    };
    const probe = await fetch(opts.url, { headers: opts.headers });
    if (probe.status !== 200)
      throw new Error(`${name}: GET ${target.path} answered ${probe.status}: ${await probe.text()}`);
    await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, token cache, connection pool
    const cpuBefore = cpuMs(child);
    const r = await autocannon({ ...opts, duration: seconds });
    const cpuUs = ((cpuMs(child) - cpuBefore) * 1000) / r.requests.total;
    return {
      name,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      requests: r.requests.total,
      errors: r.errors + r.timeouts + r.non2xx,
      cpuUs,
    };
  } finally {
    await stop(child);
  }
}

/** The server's CPU time so far (user + system, Linux /proc; NaN elsewhere). Per request it is a cost that
 *  other load on the machine hardly changes, unlike req/s, which shares the cores with autocannon and anything else. */
function cpuMs(child: ChildProcess): number {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

function firstLine(child: ChildProcess): Promise<Target> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start within 60 s')), 60_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line) as Target);
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(kill), resolve()));
    child.kill('SIGTERM');
  });
}

// The load generator of `npm run bench:ingest`: wrk when it is installed (`apt-get install wrk`), else
// autocannon. Both keep `connections` requests in flight (pipelining 1) for `duration` seconds, each a
// POST /v2/ingest body with event ids never sent before, and both report what their own process spent
// on the CPU: on two cores the load generator competes with the server and the database, and autocannon
// (JavaScript) spends several times what wrk (C) does on each request. BENCH_LOADGEN=autocannon forces it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { statFields, TICKS_PER_SECOND } from './cpu-meter.ts';
import { bodies } from './ingest-events.ts';

/** `duration` in seconds, by default the generator's. */
export type Load = {
  url: string;
  connections: number;
  templates: string[][];
  tag: string;
  token?: string;
  duration?: number;
};

export type LoadResult = {
  /** Answers with a 2xx status, and the rest (other statuses, socket errors and timeouts). */
  ok: number;
  failed: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU seconds (user + system) the load generator's process spent. */
  clientCpu: number;
};

export type LoadGenerator = { name: 'wrk' | 'autocannon'; run: (o: Load) => Promise<LoadResult>; close: () => void };

export function loadGenerator(seconds: number): LoadGenerator {
  const wanted = process.env.BENCH_LOADGEN;
  const hasWrk = wanted !== 'autocannon' && spawnSync('wrk', ['--version']).error === undefined;
  if (wanted === 'wrk' && !hasWrk)
    throw new Error('BENCH_LOADGEN=wrk, but wrk is not installed (apt-get install wrk).');
  return hasWrk
    ? wrkGenerator(seconds)
    : { name: 'autocannon', run: (o) => autocannonLoad(o, seconds), close: () => {} };
}

async function autocannonLoad(o: Load, seconds: number): Promise<LoadResult> {
  const next = bodies(o.templates, o.tag);
  const before = process.cpuUsage();
  const r = await autocannon({
    url: o.url,
    connections: o.connections,
    pipelining: 1,
    duration: o.duration ?? seconds,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        path: '/v2/ingest',
        headers: { 'content-type': 'application/json', ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
        setupRequest: (req) => ({ ...req, body: next() }),
      },
    ],
  });
  const cpu = process.cpuUsage(before);
  return {
    ok: r['2xx'],
    failed: r.non2xx + r.errors + r.timeouts,
    seconds: r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    clientCpu: (cpu.user + cpu.system) / 1e6,
  };
}

function wrkGenerator(seconds: number): LoadGenerator {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-bench-'));
  const files = new Map<string[][], string>();
  const script = new URL('./wrk-ingest.lua', import.meta.url).pathname;

  async function run(o: Load): Promise<LoadResult> {
    let file = files.get(o.templates);
    if (!file) {
      // One template a line, its parts split by U+0001 (JSON text holds no raw control characters).
      file = join(dir, `templates-${files.size}.txt`);
      writeFileSync(file, o.templates.map((parts) => parts.join('\u0001')).join('\n') + '\n');
      files.set(o.templates, file);
    }
    // The shell reads its children's CPU times (cutime, cstime) once wrk has exited.
    const shell = 'wrk "$@" && cat /proc/$$/stat';
    const args = [
      '-t1',
      `-c${o.connections}`,
      `-d${o.duration ?? seconds}s`,
      '--timeout',
      '30s',
      '-s',
      script,
      o.url,
      '--',
      file,
      o.tag,
      o.token ?? '',
    ];
    const child = spawn('sh', ['-c', shell, 'sh', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => void (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
    const stat = out.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}`);
    const r = JSON.parse(line) as {
      requests: number;
      duration_us: number;
      status_errors: number;
      socket_errors: number;
      p50_us: number;
      p99_us: number;
    };
    const fields = statFields(stat);
    const children = (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
    const ok = r.requests - r.status_errors;
    return {
      ok,
      failed: r.status_errors + r.socket_errors,
      seconds: r.duration_us / 1e6,
      p50Ms: round1(r.p50_us / 1000),
      p99Ms: round1(r.p99_us / 1000),
      clientCpu: children,
    };
  }
  return { name: 'wrk', run, close: () => rmSync(dir, { recursive: true, force: true }) };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

// Runs the real server as `npm start` runs it (package.json's start script: node, its flags, src/main.ts)
// as a child process on a port picked here, for tests and benchmarks that must kill it (SIGKILL) or keep
// the load generator off its event loop.
// Also prepares a database beforehand (migrations, one project with its secret key) the way the CLI does.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createProject } from '../../src/db/projects.ts';
import { createLogger } from '../../src/log.ts';

/** The tree whose server is started: this one, or BENCH_SERVER_DIR (an earlier checkout, for a benchmark
 *  of its server under this tree's harness). */
const root = process.env.BENCH_SERVER_DIR
  ? `${process.env.BENCH_SERVER_DIR.replace(/\/+$/, '')}/`
  : fileURLToPath(new URL('../../', import.meta.url));

export type ServerEnv = { databaseUrl: string | undefined; dataDir: string; extra?: Record<string, string> };
export type ServerProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  /** What the server printed on stdout so far (start-up output, JSON log lines). */
  stdout: () => string;
};

/** A loopback port nobody listens on right now (bound to 0, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Migrates the database and creates a project; answers its id and secret key. Closes the database after
 *  (embedded PGlite allows one process on a data directory, so this runs before the server starts). */
export async function prepareProject(
  env: ServerEnv,
  id: string,
): Promise<{ id: string; secretKey: string; publicKey: string }> {
  const db = await openDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    log: createLogger('silent'),
    max: 2,
  });
  try {
    await migrate(db.sql);
    const created = await createProject(db.sql, { id, name: id, visibility: 'private' });
    if (!created) throw new Error(`project ${id} exists`);
    return { id, secretKey: created.secretKey, publicKey: created.project.public_key };
  } finally {
    await db.close();
  }
}

/** The start script's node arguments, script last (`['--max-semi-space-size=64', '--import', 'tsx',
 *  'src/main.ts']`): what the benchmarks measure is what `npm start` runs. */
function startArgs(): string[] {
  const script = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  const [command, ...args] = script.trim().split(/\s+/);
  if (command !== 'node' || args.at(-1) !== 'src/main.ts')
    throw new Error(`package.json's start script is not "node [flags] src/main.ts": ${script}`);
  return args;
}

/** Starts `src/main.ts` as `npm start` does and waits until GET /v2/health answers (at most `timeoutMs`).
 *  `nodeArgs` come after the start script's flags, so a benchmark's flag overrides the same one there;
 *  `cpus` (a taskset list, "0") pins the server and all its threads to those CPUs. */
export async function startServerProcess(
  env: ServerEnv,
  opts: { nodeArgs?: string[]; timeoutMs?: number; port?: number; cpus?: string } = {},
): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: env.dataDir,
    INGEST_RATE_PER_SECOND: '100000',
    INGEST_RATE_BURST: '100000',
    ...(env.databaseUrl ? { DATABASE_URL: env.databaseUrl } : {}),
    ...env.extra,
  };
  const args = startArgs();
  const nodeArgv = [...args.slice(0, -1), ...(opts.nodeArgs ?? []), args.at(-1)!];
  // `cpus`: pinned with taskset, which execs node in its own process, so `child.pid` is the server's.
  const [file, argv] = opts.cpus
    ? ['taskset', ['-c', opts.cpus, process.execPath, ...nodeArgv]]
    : [process.execPath, nodeArgv];
  const child = spawn(file, argv, {
    cwd: root,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => {
    // All of it to a file when asked (a benchmark's server run with --trace-gc, say): the string keeps the start.
    if (process.env.BENCH_SERVER_STDOUT) appendFileSync(process.env.BENCH_SERVER_STDOUT, c);
    if (stdout.length < 100_000) stdout += c.toString();
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`server exited before listening:\n${stderr}`);
    try {
      if ((await fetch(`${url}/v2/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /v2/health within ${opts.timeoutMs ?? 60_000} ms:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    child,
    exited,
    stdout: () => stdout,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill(signal);
      await exited;
      clearTimeout(force);
    },
  };
}

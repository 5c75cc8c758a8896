// What `bench:query` prepares around the server: a database (fresh, or the one BENCH_DB_URL names), the
// seed through the real `cli seed` command, a read token and a fresh secret key for ingest, and the
// storage the rollups take beside the events. Imports nothing from the read path (src/query): it measures
// whichever way a branch keeps its rollups.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../../src/db/client.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { createProject, rotateSecretKey } from '../../../src/db/projects.ts';
import { createToken } from '../../../src/db/tokens.ts';
import { createLogger } from '../../../src/log.ts';
import type { ServerEnv } from '../../support/process.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function withDatabase<T>(env: ServerEnv, run: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    log: createLogger('warn'),
    max: 2,
  });
  try {
    return await run(db);
  } finally {
    await db.close();
  }
}

export async function freshDatabase(url: string): Promise<string> {
  const name = `loupe_bench_${Date.now().toString(36)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Whether the project already holds traffic (a reused database). */
export function isSeeded(env: ServerEnv, projectId: string): Promise<boolean> {
  return withDatabase(env, async (db) => {
    await migrate(db.sql);
    const rows = await db.sql`select 1 from sessions where project_id = ${projectId} limit 1`;
    return rows.length > 0;
  });
}

/** `npm run -s cli -- seed` as a user runs it, on the same database; answers its JSON and wall seconds. */
export async function cliSeed(env: ServerEnv, projectId: string, events: number, timeoutMs: number) {
  const args = ['run', '-s', 'cli', '--', 'seed', '--project', projectId, '--events', String(events), '--days', '90'];
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  if (env.databaseUrl) childEnv.DATABASE_URL = env.databaseUrl;
  else childEnv.DATA_DIR = env.dataDir;
  const t0 = performance.now();
  const child = spawn('npm', args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`cli seed exited with ${code}: ${out}`);
  return { result: JSON.parse(out) as Record<string, unknown>, seconds: (performance.now() - t0) / 1000 };
}

/** A read token for every project, and a new secret key for this one (the create result's is long gone). */
export function credentials(env: ServerEnv, projectId: string): Promise<{ token: string; secretKey: string }> {
  return withDatabase(env, async (db) => {
    await createProject(db.sql, { id: projectId, name: projectId, visibility: 'private' });
    const rotated = await rotateSecretKey(db.sql, projectId);
    const { token } = await createToken(db.sql, {
      name: 'bench',
      scope: 'read',
      projectIds: null,
      expiresAt: null,
      createdBy: 'bench',
    });
    return { token, secretKey: rotated!.secretKey };
  });
}

export type Storage = { events: number; eventBytes: number; rollupBytes: number; tables: [string, number][] };

/** Bytes (tables, their partitions, indexes, TOAST) of `events` and of every table named rollup*
 *  (pg_partition_tree has no row for a plain table: the table itself then). */
export function storage(env: ServerEnv): Promise<Storage> {
  return withDatabase(env, async (db) => {
    const rows = await db.sql<{ name: string; bytes: number }[]>`
      select r.relname as name, sum(pg_total_relation_size(coalesce(t.relid, r.oid)))::float8 as bytes
      from pg_class r
      join pg_namespace n on n.oid = r.relnamespace and n.nspname = current_schema()
      left join lateral pg_partition_tree(r.oid) t on true
      where r.relkind in ('r', 'p') and not r.relispartition and (r.relname like 'rollup%' or r.relname = 'events')
      group by r.relname
      order by bytes desc`;
    const [count] = await db.sql<{ n: number }[]>`select count(*)::float8 as n from events`;
    const rollups = rows.filter((r) => r.name !== 'events');
    return {
      events: count!.n,
      eventBytes: rows.find((r) => r.name === 'events')?.bytes ?? 0,
      rollupBytes: rollups.reduce((s, r) => s + r.bytes, 0),
      tables: rollups.map((r) => [r.name, r.bytes]),
    };
  });
}

// A fresh database for one test file: with DATABASE_URL, a new PostgreSQL database created for it and
// dropped after; without, embedded PGlite in a new temporary directory. Never a mock.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/log.ts';

export type TestDatabase = { databaseUrl: string | undefined; dataDir: string; drop: () => Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'loupe-test-'));
  const base = process.env.DATABASE_URL;
  if (!base) return { databaseUrl: undefined, dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  const name = `loupe_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    async drop() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      // The SQL route's project roles belong to the cluster, not the database: dropped with it here.
      const own = postgres(url.toString(), { max: 1, onnotice: () => {} });
      const roles = await own<{ role_name: string }[]>`select role_name from sql_roles`.catch(() => []);
      await own.end();
      await a.unsafe(`drop database if exists ${name} with (force)`);
      for (const r of roles) await a.unsafe(`drop role if exists "${r.role_name}"`);
      await a.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh, migrated database opened with the server's own client, closed and dropped when `t` ends. */
export async function openMigratedDatabase(t: { teardown: (fn: () => Promise<void>) => void }): Promise<Database> {
  const testDb = await createTestDatabase();
  const db = await openDatabase({
    databaseUrl: testDb.databaseUrl,
    dataDir: testDb.dataDir,
    log: createLogger('silent'),
  });
  t.teardown(async () => {
    await db.close();
    await testDb.drop();
  });
  await migrate(db.sql);
  return db;
}

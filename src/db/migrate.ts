// Forward-only migrations from sql/migrations, applied in order under an advisory lock.
// Each runs in a transaction whose first statement records it, so two servers never apply one twice.
import { readdir, readFile } from 'node:fs/promises';
import type { Sql } from 'postgres';

const migrationsDir = new URL('../../sql/migrations/', import.meta.url);
const LOCK_ID = 7_370_001; // any constant shared by every Loupe process

export async function migrate(sql: Sql): Promise<{ applied: string[] }> {
  const files = (await readdir(migrationsDir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return sql.begin(async (tx) => {
    // A migration may rewrite a large table: the connection's statement timeout (for reads) is lifted here.
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx`insert into schema_migrations (name) values (${file})`;
      await tx.unsafe(await readFile(new URL(file, migrationsDir), 'utf8'));
      applied.push(file);
    }
    return { applied };
  });
}

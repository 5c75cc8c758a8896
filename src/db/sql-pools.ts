// Connections for the SQL route on PostgreSQL: one small pool per project, logged in as the project's own
// restricted role (sql/migrations/0025_analyst_schema.sql), so that nothing a query does can change whose
// rows it reads. Roles are made on first use; pools close when idle and the least recently used go first.
import { randomBytes } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import { HttpError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { query } from './queries.ts';

/** Pools kept open at once; past this the least recently used one is closed. */
const MAX_POOLS = 16;

export type SqlPools = { forProject: (projectId: string) => Promise<Sql>; close: () => Promise<void> };

export function createSqlPools(opts: { sql: Sql; databaseUrl: string; log: Logger; perPool: number }): SqlPools {
  const pools = new Map<string, Promise<Sql>>();
  async function open(projectId: string): Promise<Sql> {
    const [role] = await query<{ role_name: string; password: string }>(opts.sql, 'upsert_sql_role', [
      projectId,
      randomBytes(24).toString('base64url'),
    ]);
    try {
      await opts.sql.begin((tx) => query(tx, 'prepare_sql_role', [role!.role_name, role!.password]));
    } catch (err) {
      opts.log.warn('could not prepare the SQL route role', { err, projectId });
      throw new HttpError(
        'UNAVAILABLE',
        "The SQL route cannot run here: Loupe's database user needs the CREATEROLE attribute to make each project's restricted role (docs/sql-route.md).",
      );
    }
    return postgres(opts.databaseUrl, {
      username: role!.role_name,
      password: role!.password,
      max: opts.perPool,
      idle_timeout: 30,
      prepare: false,
      onnotice: () => {},
      connection: { application_name: 'loupe-sql' },
      types: {
        bigint: { to: 20, from: [20], serialize: String, parse: exactNumber },
        numeric: { to: 1700, from: [1700], serialize: String, parse: exactNumber },
      },
    }) as unknown as Sql;
  }
  return {
    forProject(projectId) {
      let pool = pools.get(projectId);
      if (pool)
        pools.delete(projectId); // re-inserted below: the map's order is the order of use
      else pool = open(projectId);
      pools.set(projectId, pool);
      pool.catch(() => pools.get(projectId) === pool && pools.delete(projectId));
      while (pools.size > MAX_POOLS) {
        const [oldest, closing] = pools.entries().next().value!;
        pools.delete(oldest);
        void closing.then((s) => s.end({ timeout: 30 })).catch(() => {});
      }
      return pool;
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.allSettled(all.map(async (p) => (await p).end({ timeout: 5 })));
    },
  };
}

/** A bigint or numeric as a JS number when that loses nothing that matters, else as its text. */
function exactNumber(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) || (!Number.isInteger(n) && text.length <= 16) ? n : text;
}

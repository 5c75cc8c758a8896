// Reading exports back the way a user would: csv parsed by RFC 4180, sql loaded into real PostgreSQL
// (or embedded PGlite) and into Debian's sqlite3. Shared by the writer tests and the route tests.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from './database.ts';

/** RFC 4180: fields split on commas, records on CRLF, quoted fields may hold both and "" for a quote. */
export function parseCsv(s: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < s.length) {
    let field = '';
    if (s[i] === '"') {
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        field += s.slice(i, q);
        i = q + 1;
        if (s[i] === '"') ((field += '"'), i++);
        else break;
      }
    } else {
      const m = /[,\r]/g;
      m.lastIndex = i;
      const hit = m.exec(s);
      const end = hit ? hit.index : s.length;
      field = s.slice(i, end);
      i = end;
    }
    record.push(field);
    if (s[i] === ',') i++;
    else if (s.startsWith('\r\n', i)) ((i += 2), records.push(record), (record = []));
  }
  if (record.length > 0) records.push(record);
  return records;
}

/** Runs an sql export in a fresh database and reads the table back; timestamps come back as ISO strings. */
export async function loadIntoPostgres(
  script: string,
  select: string,
): Promise<{ rows: Record<string, unknown>[]; engine: string }> {
  const db = await createTestDatabase();
  const pg = await openDatabase({
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    log: createLogger('silent'),
    max: 1,
  });
  try {
    await pg.sql.unsafe(script);
    const rows = await pg.sql.unsafe<Record<string, unknown>[]>(select);
    const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
    return {
      rows: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, iso(v)]))),
      engine: db.databaseUrl ? 'PostgreSQL' : 'PGlite',
    };
  } finally {
    await pg.close();
    await db.drop();
  }
}

/** Loads an sql export with the sqlite3 command line and reads the table back (booleans stay 1/0). */
export async function loadIntoSqlite(
  script: string,
  select: string,
): Promise<{ rows: Record<string, unknown>[]; status: number | null; stderr: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'loupe-sqlite-'));
  try {
    const file = path.join(dir, 'export.db');
    const load = spawnSync('sqlite3', ['-bail', file], { input: script, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (load.status !== 0) return { rows: [], status: load.status, stderr: load.stderr };
    const read = spawnSync('sqlite3', ['-json', file, select], { encoding: 'utf8', maxBuffer: 1 << 28 });
    return {
      rows: read.status === 0 ? (JSON.parse(read.stdout || '[]') as Record<string, unknown>[]) : [],
      status: read.status,
      stderr: read.stderr,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

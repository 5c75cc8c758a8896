// COPY's text format as the event store writes it: every awkward value (tabs, line breaks, backslashes,
// JSON with escapes, non-ASCII, null) goes through a real COPY FROM STDIN and comes back unchanged.
// On PostgreSQL through the client's COPY FROM STDIN; without DATABASE_URL through an in-process PGlite's
// COPY FROM '/dev/blob' (its socket has no COPY FROM STDIN, the same parser reads the text).
import { PGlite } from '@electric-sql/pglite';
import t from 'tap';
import { copyLine } from '../../src/db/copy-text.ts';
import { openDatabase } from '../../src/db/client.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase } from '../support/database.ts';

const testDb = await createTestDatabase();
t.teardown(() => testDb.drop());

const rows: [string | null, Record<string, unknown> | null, boolean, number, Date][] = [
  ['plain', { a: 1 }, true, 1, new Date('2026-11-22T10:00:00.123Z')],
  [
    'tab\there, line\nbreak, cr\r\nlf, back\\slash, \\N literally',
    { stack: 'Error: x\n    at f (a.js:1:2)\\n', q: '"quoted"' },
    false,
    2,
    new Date(0),
  ],
  [
    'ünïcödé — 日本語 \u2028 emoji 🎉',
    { nested: { tab: '\t', bs: '\\\\' }, list: [null, 'x'] },
    true,
    -3,
    new Date('2030-01-01T00:00:00Z'),
  ],
  [null, null, false, 0, new Date('2026-11-22T10:00:00Z')],
];

const text = rows.map((r) => copyLine(r) + '\n').join('');
const expected = rows.map((r) => [r[0], r[1], r[2], r[3], r[4].toISOString()]);
const TABLE = 'create table copied (n serial, s text, j jsonb, b boolean, i int, d timestamptz)';
type Back = { s: string | null; j: unknown; b: boolean; i: number; d: Date };

t.test('values survive a real COPY', async (t) => {
  let back: Back[];
  if (testDb.databaseUrl) {
    const db = await openDatabase({
      databaseUrl: testDb.databaseUrl,
      dataDir: testDb.dataDir,
      log: createLogger('silent'),
    });
    t.teardown(() => db.close());
    await db.sql.unsafe(TABLE);
    const writable = await db.sql`copy copied (s, j, b, i, d) from stdin`.writable();
    await new Promise<void>((resolve, reject) => {
      writable.once('error', reject);
      writable.once('finish', resolve);
      writable.end(text);
    });
    back = await db.sql<Back[]>`select s, j, b, i, d from copied order by n`;
  } else {
    const pg = await PGlite.create();
    t.teardown(() => pg.close());
    await pg.exec(TABLE);
    await pg.query(`copy copied (s, j, b, i, d) from '/dev/blob'`, [], { blob: new Blob([text]) });
    back = (await pg.query<Back>('select s, j, b, i, d from copied order by n')).rows;
  }
  t.same(
    back.map((r) => [r.s, r.j, r.b, r.i, r.d.toISOString()]),
    expected,
  );
});

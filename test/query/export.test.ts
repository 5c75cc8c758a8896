// The export writers end to end: 100,000 rows as csv and json parse back to the same rows; the sql loads
// into real PostgreSQL (or embedded PGlite) and into Debian's sqlite3, and both give the rows back; and a
// million rows stream through with flat memory.
import v8 from 'node:v8';
import vm from 'node:vm';
import t, { type Test } from 'tap';
import { exportChunks, exportReply, formatOf, type Column, type ExportFormat } from '../../src/query/export/index.ts';
import { loadIntoPostgres, loadIntoSqlite, parseCsv } from '../support/export-check.ts';

const columns: Column[] = [
  { key: 'id', type: 'integer' },
  { key: 'name', type: 'text' },
  { key: 'score', type: 'number' },
  { key: 'active', type: 'boolean' },
  { key: 'at', type: 'timestamp' },
  { key: 'meta.country', type: 'text' },
  { key: 'meta.visits', type: 'integer' },
];
const NAMES = [
  'plain',
  'comma, inside',
  'quote " inside',
  "apostrophe's",
  'line\nbreak',
  'crlf\r\nbreak',
  'ünïcødé ✓',
  '',
  ' padded ',
  'back\\slash',
  'semi;colon -- not a comment',
];
const T0 = Date.UTC(2024, 0, 1);

type Row = {
  id: number;
  name: string | null;
  score: number | null;
  active: boolean | null;
  at: Date;
  meta: { country: string | null; visits: number };
};
const rowAt = (i: number): Row => ({
  id: i,
  name: i % 13 === 0 ? null : `${NAMES[i % NAMES.length]}#${i}`,
  score: i % 17 === 0 ? null : i * 1.5 + 0.25,
  active: i % 11 === 0 ? null : i % 2 === 0,
  at: new Date(T0 + i * 61_000),
  meta: { country: i % 7 === 0 ? null : ['GB', 'US', 'DE'][i % 3]!, visits: i % 100 },
});
async function* rows(n: number): AsyncGenerator<Record<string, unknown>> {
  for (let i = 0; i < n; i++) yield rowAt(i);
}
/** A row as flat values, in column order, the way every loader should give it back. */
const flat = (r: Row) => [r.id, r.name, r.score, r.active, r.at.toISOString(), r.meta.country, r.meta.visits];

async function text(format: ExportFormat, n: number, envelope?: Record<string, unknown>): Promise<string> {
  let out = '';
  for await (const chunk of exportChunks(format, { name: 'export_rows', columns, rows: rows(n), envelope }))
    out += chunk;
  return out;
}

// A million rows three times, and loading 100,000 into two databases, outlast tap's default 120 s on a busy box.
t.setTimeout(400_000);

const N = 100_000;
const expected = Array.from({ length: N }, (_, i) => flat(rowAt(i)));

t.test('formatOf: format wins, Accept: text/csv asks for csv, otherwise the paged answer', async (t) => {
  t.equal(formatOf({ format: 'sql' }, 'text/csv'), 'sql');
  t.equal(formatOf({}, 'text/html, text/csv;q=0.9'), 'csv');
  t.equal(formatOf({}, 'application/json'), null);
  t.equal(formatOf({}), null);
  const r = exportReply('csv', { name: 'breakdown page', columns, rows: rows(1) });
  t.equal(r.contentType, 'text/csv; charset=utf-8');
  t.equal(r.headers?.['Content-Disposition'], 'attachment; filename="breakdown_page.csv"');
});

t.test('csv: a header of dotted columns, RFC 4180 quoting, null as empty', async (t) => {
  const records = parseCsv(await text('csv', N));
  t.same(
    records[0],
    columns.map((c) => c.key),
  );
  t.equal(records.length, N + 1);
  const back = records
    .slice(1)
    .map((f) => [
      Number(f[0]),
      f[1] === '' ? null : f[1],
      f[2] === '' ? null : Number(f[2]),
      f[3] === '' ? null : f[3] === 'true',
      f[4],
      f[5] === '' ? null : f[5],
      Number(f[6]),
    ]);
  sameRows(t, back, 'csv');
});

t.test('json: the normal answer with every row in data', async (t) => {
  const answer = JSON.parse(await text('json', N, { range: { from: 'a', to: 'b' }, filters: {}, nextCursor: null }));
  t.same(Object.keys(answer), ['data', 'range', 'filters', 'nextCursor']);
  t.equal(answer.data.length, N);
  t.same(
    answer.data.map((r: any) => [r.id, r.name, r.score, r.active, r.at, r.meta.country, r.meta.visits]),
    expected,
  );
});

t.test('sql: loads into PostgreSQL and SQLite and gives the same rows back', async (t) => {
  const script = await text('sql', N);
  t.match(script, /^CREATE TABLE "export_rows" \(/);
  const select = 'select * from export_rows order by id';
  const pg = await loadIntoPostgres(script, select);
  sameRows(
    t,
    pg.rows.map((r) => columns.map((c) => r[c.key])),
    pg.engine,
  );
  const lite = await loadIntoSqlite(script, select);
  t.equal(lite.status, 0, lite.stderr);
  // SQLite keeps booleans as 1/0.
  sameRows(
    t,
    lite.rows.map((r) => columns.map((c) => (c.type === 'boolean' && r[c.key] !== null ? r[c.key] === 1 : r[c.key]))),
    'SQLite',
  );
});

t.test('a million rows stream through each writer with flat memory', async (t) => {
  // Live memory is what must stay flat: collect before each sample, or garbage not yet collected counts.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (const format of ['csv', 'json', 'sql'] as const) {
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let chunks = 0;
    let bytes = 0;
    for await (const chunk of exportChunks(format, { name: 'big', columns, rows: rows(1_000_000) })) {
      bytes += chunk.length;
      if (++chunks % 256 === 0) (gc(), (peak = Math.max(peak, process.memoryUsage().heapUsed)));
    }
    const growth = (peak - before) / 2 ** 20;
    t.ok(
      growth < 64,
      `${format}: ${Math.round(bytes / 2 ** 20)} MB written in ${chunks} chunks, heap grew ${growth.toFixed(1)} MB`,
    );
    t.ok(chunks > 100, `${format}: written in many chunks`);
  }
});

/** Compares row by row and reports the first difference (a deep diff of 100,000 rows would take minutes). */
function sameRows(t: Test, got: unknown[][], what: string): void {
  const first = got.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(expected[i]));
  t.equal(got.length, expected.length, `${what}: every row`);
  t.same(
    first === -1 ? null : { index: first, got: got[first], expected: expected[first] },
    null,
    `${what}: same rows`,
  );
}

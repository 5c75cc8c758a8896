// Held-cursor reads (src/db/held-cursor.ts): every row once, in the query's order, a page at a time; the
// cursor is closed however the reader stops, two reads at once hold cursors of their own, and between
// pages the database answers other statements (on the embedded database, its one session).
import t from 'tap';
import { createPagedRead } from '../../src/db/held-cursor.ts';
import { openMigratedDatabase } from '../support/database.ts';

const db = await openMigratedDatabase(t);
const { sql } = db;
const read = createPagedRead(sql, db.embedded);
// pg_cursors lists the session's own cursors. Embedded, that is every connection's; on PostgreSQL a read's
// cursor lives on the connection it reserved, so there a cursor left open shows as the next read of its
// name failing (cursor already exists), which the later tests would meet.
const openCursors = async () =>
  (await sql<{ n: number }[]>`select count(*)::int as n from pg_cursors where name like 'loupe_read_%'`)[0]!.n;

t.test('every row once, in order, a page at a time', async (t) => {
  const pages: number[][] = [];
  const query = sql<{ i: number }[]>`select i from generate_series(1, ${2500}) i order by i desc`;
  for await (const page of read(query, 1000)) pages.push(page.map((r) => r.i));
  t.same(
    pages.map((p) => p.length),
    [1000, 1000, 500],
  );
  t.same(
    pages.flat(),
    Array.from({ length: 2500 }, (_, k) => 2500 - k),
  );
  t.equal(await openCursors(), 0, 'closed at the end');
});

t.test('a reader that stops early closes its cursor', async (t) => {
  for await (const page of read(sql<{ i: number }[]>`select i from generate_series(1, 5000) i`, 100)) {
    t.equal(page.length, 100);
    break;
  }
  t.equal(await openCursors(), 0);
});

t.test('two reads at once, other statements between their pages', async (t) => {
  const a = read(sql<{ s: string }[]>`select 'a' || i as s from generate_series(1, 300) i`, 100);
  const b = read(sql<{ n: number }[]>`select i as n from generate_series(1, 300) i`, 100);
  const first = await a.next();
  const second = await b.next();
  if (db.embedded) t.equal(await openCursors(), 2, 'each read holds its own cursor');
  const [{ now }] = await sql<{ now: Date }[]>`select now()`;
  t.ok(now instanceof Date, 'another statement ran between pages');
  t.same([(first.value as { s: string }[])[0], (second.value as { n: number }[])[0]], [{ s: 'a1' }, { n: 1 }]);
  let rest = 0;
  for await (const page of a) rest += page.length;
  for await (const page of b) rest += page.length;
  t.equal(rest, 400, 'each read went on with its own rows');
  t.equal(await openCursors(), 0);
});

// The embedded database's upkeep (src/db/upkeep.ts): the tables past autovacuum's thresholds (their own
// settings first) are vacuumed or analyzed, the most overdue first, within a pass's budget, and a vacuumed
// table's dead space is used again where without it the table only grows. The server runs it on the
// embedded database only (PostgreSQL has autovacuum). Probe tables with autovacuum off, so PostgreSQL's
// own never runs first.
import t from 'tap';
import type { Sql } from 'postgres';
import { query } from '../../src/db/queries.ts';
import { upkeepPass } from '../../src/db/upkeep.ts';
import { openMigratedDatabase } from '../support/database.ts';
import { startTestServer } from '../support/server.ts';

const db = await openMigratedDatabase(t);
const sql = db.sql;

const createProbe = (s: Sql, name: string) =>
  s`create table ${s(name)} (id int primary key, v text not null) with (autovacuum_enabled = off)`;
/** The table's own pages (the free-space map governs these; an index's emptied pages come back later). */
const size = async (s: Sql, name: string) =>
  Number((await s<{ b: string }[]>`select pg_relation_size(${name}::regclass) as b`)[0]!.b);
const stat = async (s: Sql, name: string) =>
  (
    await s<{ ins: number; del: number; dead: number; changed: number; vacuums: number; analyzes: number }[]>`
      select n_tup_ins::int as ins, n_tup_del::int as del, n_dead_tup::int as dead,
        n_mod_since_analyze::int as changed, vacuum_count::int as vacuums, analyze_count::int as analyzes
      from pg_stat_user_tables where relname = ${name}`
  )[0]!;
/** Rows ids from..to inserted, then those above `keep` deleted; the statistics made visible. */
async function churn(s: Sql, name: string, from: number, to: number, keep: number) {
  await s.begin(async (tx) => {
    await tx`insert into ${s(name)} select g, repeat('x', 200) from generate_series(${from}::int, ${to}::int) g`;
    await tx`delete from ${s(name)} where id > ${keep}`;
    await tx`select pg_stat_force_next_flush()`;
  });
}
/** Waits (at most 15 s) until `ok` holds of the table's statistics, which a backend reports when idle. */
async function until(s: Sql, name: string, ok: (x: Awaited<ReturnType<typeof stat>>) => boolean) {
  const end = Date.now() + 15_000;
  for (;;) {
    const x = await stat(s, name);
    if (ok(x) || Date.now() > end) return x;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const due = async (s: Sql) =>
  (await query<{ relation: string; vacuum: boolean; analyze: boolean }>(s, 'list_tables_due_upkeep')).map(
    (r) => r.relation,
  );

t.test('a table past the thresholds is vacuumed and analyzed, and its dead space used again', async (t) => {
  // Without a vacuum: 9,000 rows deleted, 9,000 inserted, and the table twice its size.
  await createProbe(sql, 'left_alone');
  await churn(sql, 'left_alone', 1, 10_000, 1_000);
  const before = await size(sql, 'left_alone');
  await sql`insert into left_alone select g, repeat('x', 200) from generate_series(10001, 19000) g`;
  t.ok((await size(sql, 'left_alone')) > before * 1.5, 'unvacuumed, the new rows go after the dead ones');

  await createProbe(sql, 'churned');
  await churn(sql, 'churned', 1, 10_000, 1_000);
  t.ok((await until(sql, 'churned', (x) => x.dead >= 9_000)).dead >= 9_000, '9,000 dead rows counted');
  t.ok((await due(sql)).includes('churned'), 'listed as due');
  const size0 = await size(sql, 'churned');
  const pass = await upkeepPass(sql, 60_000);
  t.ok(pass.vacuumed.includes('churned'), 'vacuumed');
  t.equal(pass.left, 0, 'nothing left within the budget');
  t.notOk(pass.analyzed.includes('churned'), 'analyzed with its vacuum, not apart');
  const after = await until(sql, 'churned', (x) => x.vacuums > 0 && x.analyzes > 0);
  t.equal(after.dead, 0, 'no dead rows counted after it');
  t.ok(after.vacuums === 1 && after.analyzes === 1, 'one vacuum with its analyze');
  t.notOk((await due(sql)).includes('churned'), 'no longer due');
  await sql`insert into churned select g, repeat('x', 200) from generate_series(10001, 19000) g`;
  t.ok((await size(sql, 'churned')) <= size0, 'the 9,000 new rows fill the space of the deleted ones');
  t.equal((await sql`select count(*)::int as n from churned`)[0]!.n, 10_000, 'every live row kept');
});

t.test('under the thresholds a table is left alone; past the analyze threshold only analyzed', async (t) => {
  await createProbe(sql, 'calm');
  await churn(sql, 'calm', 1, 10_000, 10_000);
  await until(sql, 'calm', (x) => x.ins === 10_000); // counted before the vacuum, or counted after it as new
  await sql`vacuum (analyze) calm`;
  await until(sql, 'calm', (x) => x.vacuums === 1 && x.analyzes === 1);
  await sql.begin(async (tx) => {
    await tx`delete from calm where id <= 100`;
    await tx`select pg_stat_force_next_flush()`;
  });
  await until(sql, 'calm', (x) => x.del === 100);
  const first = await upkeepPass(sql, 60_000);
  t.notOk([...first.vacuumed, ...first.analyzed].includes('calm'), '100 of 10,000 rows deleted: nothing due');
  await sql.begin(async (tx) => {
    await tx`delete from calm where id <= 1500`;
    await tx`select pg_stat_force_next_flush()`;
  });
  await until(sql, 'calm', (x) => x.del === 1_500);
  const second = await upkeepPass(sql, 60_000);
  t.ok(second.analyzed.includes('calm'), '1,500 changed (over 1,050): analyzed');
  t.notOk(second.vacuumed.includes('calm'), '1,500 dead (under 2,050): not vacuumed');
});

t.test("a table's own autovacuum settings come before the database's", async (t) => {
  // As the events partitions' (0088): a vacuum every 20,000 new rows, whatever the partition's size.
  await sql`create table own_threshold (id int primary key, v text not null) with (autovacuum_enabled = off,
    autovacuum_vacuum_insert_threshold = 100, autovacuum_vacuum_insert_scale_factor = 0)`;
  await createProbe(sql, 'default_threshold');
  await churn(sql, 'own_threshold', 1, 150, 150);
  await churn(sql, 'default_threshold', 1, 150, 150);
  await until(sql, 'own_threshold', (x) => x.ins === 150);
  await until(sql, 'default_threshold', (x) => x.ins === 150);
  const pass = await upkeepPass(sql, 60_000);
  t.ok(pass.vacuumed.includes('own_threshold'), '150 rows inserted, past its own 100: vacuumed');
  t.notOk(pass.vacuumed.includes('default_threshold'), 'past 50 changed rows but under 1,000 inserted: not vacuumed');
  t.ok(pass.analyzed.includes('default_threshold'), 'only analyzed');
});

t.test('a pass stops starting statements past its budget; the next takes up the most overdue', async (t) => {
  await createProbe(sql, 'most_overdue');
  await createProbe(sql, 'less_overdue');
  await churn(sql, 'most_overdue', 1, 20_000, 0);
  await churn(sql, 'less_overdue', 1, 2_000, 0);
  await until(sql, 'most_overdue', (x) => x.dead >= 20_000);
  await until(sql, 'less_overdue', (x) => x.dead >= 2_000);
  const listed = await due(sql);
  t.ok(listed.indexOf('most_overdue') < listed.indexOf('less_overdue'), 'the more dead rows a threshold, the sooner');
  const order: string[] = [];
  for (let i = 0; i < 50 && !order.includes('less_overdue'); i++) {
    const pass = await upkeepPass(sql, 0);
    t.equal(pass.vacuumed.length + pass.analyzed.length, 1, `pass ${i + 1} ran one statement`);
    order.push(...pass.vacuumed, ...pass.analyzed);
  }
  t.ok(order.indexOf('most_overdue') >= 0 && order.indexOf('most_overdue') < order.indexOf('less_overdue'), 'in order');
});

t.test('the server runs it on the embedded database only', async (t) => {
  const s = await startTestServer({ upkeepMs: 100, rollupBuildMs: 0 });
  t.teardown(() => s.close());
  const own = s.loupe.services.sql;
  await createProbe(own, 'served');
  await churn(own, 'served', 1, 5_000, 0);
  await until(own, 'served', (x) => x.dead >= 5_000 || x.vacuums > 0);
  if (db.embedded) {
    const x = await until(own, 'served', (x) => x.vacuums > 0);
    t.equal(x.vacuums, 1, 'embedded: vacuumed by the server within a few passes');
  } else {
    await new Promise((r) => setTimeout(r, 500));
    t.equal((await stat(own, 'served')).vacuums, 0, 'PostgreSQL: left to autovacuum (off for this table)');
  }
});

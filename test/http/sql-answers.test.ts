// The SQL route's answers at their edges, on both databases: exports stop at their caps and say so, a
// query failing midway, and errors as 400s with PostgreSQL's message and position.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { safeRunner, seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({ sql: { timeoutMs: 1000, concurrency: 4, embeddedMaxCost: 100_000 } });
t.teardown(() => s.close());
const { owner } = await seedTwoProjects(s);
const { run } = safeRunner(s, owner.cookie);
const embedded = !s.loupe.services.config.databaseUrl;

t.test('exports stream up to their cap and say so', async (t) => {
  const limits = s.loupe.services.sqlRoute.limits;
  const saved = limits.export;
  limits.export = { rows: 2500, bytes: saved.bytes };
  t.teardown(() => void (limits.export = saved));
  const csv = await run('select g, g * 2 as twice from generate_series(1, 3000) g', '?format=csv');
  t.equal(csv.status, 200);
  const lines = csv.text.trim().split('\r\n');
  t.equal(lines[0], 'g,twice');
  t.equal(lines.length, 2501, 'cut at the cap');
  const json = await run('select g from generate_series(1, 3000) g', '?format=json');
  t.equal(json.body.data.length, 2500);
  t.same([json.body.rowCount, json.body.truncated], [2500, true]);
  const failing = await run('select 1 / (g - 700) as x from generate_series(1, 1000) g', '?format=json');
  if (embedded) {
    // Embedded rows are read whole before the answer starts: the failure is an ordinary 400.
    t.match([failing.status, failing.body.error?.code], [400, 'SQL_ERROR']);
  } else {
    t.equal(failing.status, 200, 'an export already under way cannot change its status');
    t.ok(failing.body.data.length < 700, 'it ends where the query failed');
    t.match(failing.body, { truncated: true, error: { code: 'SQL_ERROR', message: /division by zero/ } });
  }
  const sqlDump = await run('select name, count(*) as n from events group by 1 order by 1', '?format=sql');
  t.match(sqlDump.text, /CREATE TABLE "sql_alpha"/);
  t.match(sqlDump.text, /\('pageview', 60\)/);
  t.notOk(sqlDump.text.includes('beta'));
});

t.test('errors are 400s with PostgreSQL message and position, never 500', async (t) => {
  const syntax = await run('select from where');
  t.equal(syntax.status, 400);
  t.equal(syntax.body.error.code, 'SQL_ERROR');
  t.match(syntax.body.error.details[0], { field: 'body.query', position: 13 });
  const column = await run('  select nope\nfrom events');
  t.equal(column.body.error.code, 'SQL_ERROR');
  t.match(column.body.error.message, /column "nope" does not exist/);
  t.equal(column.body.error.details[0].position, 10, 'position counts from the start of the caller text');
  const division = await run('select 1 / (count(*) - count(*)) from events');
  t.equal(division.body.error.code, 'SQL_ERROR');
  t.match(division.body.error.message, /division by zero/);
  const late = await run('select 1 / (g - 700) from generate_series(1, 1000) g');
  t.equal(late.status, 400, 'an error in a later batch of rows is a 400 too');
  t.match(late.body.error, { code: 'SQL_ERROR', message: /division by zero/ });
  const empty = await run('-- nothing');
  t.equal(empty.body.error.code, 'SQL_REFUSED');
});

// The SQL route against denial of service, on both databases: heavy queries are stopped (PostgreSQL's
// timeout) or refused beforehand (embedded), and answers stop at their row and byte caps.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { safeRunner, seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({ sql: { timeoutMs: 1000, concurrency: 4, embeddedMaxCost: 100_000 } });
t.teardown(() => s.close());
const { owner } = await seedTwoProjects(s);
const { run, expectSafe, REFUSED } = safeRunner(s, owner.cookie);
const embedded = !s.loupe.services.config.databaseUrl;

t.test('denial of service: stopped, refused, or capped', async (t) => {
  const stopped = embedded ? REFUSED : ['SQL_TIMEOUT'];
  const started = Date.now();
  await expectSafe(t, 'select pg_sleep(30)', REFUSED);
  await expectSafe(t, 'select count(*) from generate_series(1, 10000000000)', stopped);
  await expectSafe(t, 'select count(*) from generate_series(1, 100000) a, generate_series(1, 100000) b', stopped);
  await expectSafe(t, 'select count(*) from events a, events b, events c, events d, events e', stopped);
  const recursion = await expectSafe(
    t,
    'with recursive r(n) as (select 1 union all select n + 1 from r) select count(*) from r',
    stopped,
  );
  if (embedded) t.match(recursion.body.error.message, /RECURSIVE/, 'the embedded database names why');
  t.ok(Date.now() - started < 30_000, `every heavy query ended within the timeout (${Date.now() - started} ms)`);
  const rows = await expectSafe(t, 'select g from generate_series(1, 20000) g', ['SQL_TOO_LARGE']);
  t.match(rows.body.error.message, /10000 rows/);
  const limits = s.loupe.services.sqlRoute.limits;
  const saved = limits.answer;
  limits.answer = { rows: saved.rows, bytes: 10_000 };
  const bytes = await expectSafe(t, 'select g, md5(g::text) from generate_series(1, 1000) g', ['SQL_TOO_LARGE']);
  t.match(bytes.body.error.message, /10000 bytes/);
  limits.answer = saved;
  const ok = await run('select g from generate_series(1, 10000) g');
  t.equal(ok.body.rowCount, 10_000, 'exactly the cap is answered');
});

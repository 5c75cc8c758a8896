// Isolation below the parser gate: on PostgreSQL a project's queries run logged in as its own restricted
// role, which stays on its project whatever it runs (set_config, SET ROLE, query_to_xml, base tables,
// catalogs); the embedded database's one session sees nothing through the views until the route names a
// project. Statements here go straight to the connections, as if the gate had let them through.
import t from 'tap';
import postgres from 'postgres';
import { startTestServer } from '../support/server.ts';
import { seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer();
t.teardown(() => s.close());
await seedTwoProjects(s);
const app = s.loupe.services.sql;
const target = await s.loupe.services.sqlRoute.target('alpha');

if (target.kind === 'embedded') {
  t.test('embedded: the views are empty until the route names a project', async (t) => {
    const [none] = await app<{ n: number }[]>`select count(*)::int as n from analyst.events`;
    t.equal(none!.n, 0, 'no project named, no rows');
    const [alpha] = await app.begin(async (tx) => {
      await tx`select set_config('loupe.sql_project', 'alpha', true)`;
      return tx<{ n: number; beta: number }[]>`
        select count(*)::int as n, count(*) filter (where visitor_id like 'beta%')::int as beta from analyst.events`;
    });
    t.same(alpha, { n: 132, beta: 0 });
  });
} else {
  const pool = target.pool;
  /** Runs statements in one transaction on the restricted pool, as the route would; answers the last
   *  result, or the error's code. */
  const attempt = async (...statements: string[]) => {
    const c = await pool.reserve();
    try {
      await c.unsafe('begin read only');
      let last: unknown;
      for (const q of statements) last = await c.unsafe(q);
      return { rows: last as Record<string, unknown>[] };
    } catch (err) {
      return { code: (err as postgres.PostgresError).code, message: (err as Error).message };
    } finally {
      await c.unsafe('rollback').catch(() => {});
      await c.unsafe('discard all').catch(() => {});
      c.release();
    }
  };

  t.test('the session is the project role, which cannot become another', async (t) => {
    const who = await attempt('select session_user::text as s, current_user::text as c');
    t.match(who.rows?.[0]?.s, /^loupe_sql_[0-9a-f]{24}$/, 'logged in as the project role');
    t.equal(who.rows?.[0]?.s, who.rows?.[0]?.c);
    for (const q of [
      'set role postgres',
      "select set_config('role', 'postgres', true)",
      'set session authorization postgres',
      "select set_config('session_authorization', 'postgres', true)",
    ])
      t.equal((await attempt(q)).code, '42501', `${q}: permission denied`);
  });

  t.test('the project setting is ignored for it; the views follow the role', async (t) => {
    const r = await attempt(
      "select set_config('loupe.sql_project', 'beta', false)",
      "select count(*)::int as n, count(*) filter (where visitor_id like 'beta%')::int as beta from analyst.events",
    );
    t.same(r.rows?.[0], { n: 132, beta: 0 });
  });

  t.test('no base table, no other reader of them, no files, no sequences', async (t) => {
    for (const q of [
      'select * from public.events',
      'select * from public.sql_roles',
      'select * from public.projects',
      'select * from events_default',
      "select query_to_xml('select * from public.events', true, true, '')",
      "select pg_read_file('/etc/passwd')",
      "select lo_import('/etc/passwd')",
      "select nextval('public.rollup_build_seq')",
      "select public.loupe_sql_prepare_role('x', 'y')",
    ])
      t.match((await attempt(q)).code, /^(42501|42P01|25006)$/, `${q}: refused by the database`);
    const write = await attempt('insert into analyst.annotations (id) values (1)');
    t.match(write.code, /^(42501|25006)$/, 'no writing');
  });

  t.test('catalog statistics and other sessions show nothing of the base tables', async (t) => {
    await app`analyze events`;
    const stats = await attempt("select count(*)::int as n from pg_stats where tablename like 'events%'");
    t.equal(stats.rows?.[0]?.n, 0, 'pg_stats: no column of a table it cannot read');
    const ext = await attempt('select count(*)::int as n from pg_stats_ext');
    t.equal(ext.rows?.[0]?.n, 0, 'pg_stats_ext: nothing');
    await app`select pg_sleep(0.01), 'alpha secret query text'`;
    const activity = await attempt(
      "select count(*)::int as n from pg_stat_activity where query like '%secret query text%' and query not like '%pg_stat_activity%'",
    );
    t.equal(activity.rows?.[0]?.n, 0, "no other role's query text");
  });

  t.test("a lock or a listener taken anyway does not outlive the route's cleanup", async (t) => {
    const c = await pool.reserve();
    await c.unsafe('select pg_advisory_lock(7370099)');
    await c.unsafe('listen loupe_sql_test');
    await c.unsafe('discard all');
    c.release();
    const [free] = await app<{ ok: boolean }[]>`select pg_try_advisory_lock(7370099) as ok`;
    t.equal(free!.ok, true, 'the advisory lock was released');
    await app`select pg_advisory_unlock(7370099)`;
  });

  t.test('another project has its own role', async (t) => {
    const beta = await s.loupe.services.sqlRoute.target('beta');
    if (beta.kind !== 'postgres') throw new Error('unreachable');
    const [a] = await pool<{ s: string }[]>`select session_user::text as s`;
    const [b] = await beta.pool<{ s: string; n: number }[]>`
      select session_user::text as s, count(*) filter (where visitor_id like 'a-%')::int as n from analyst.events`;
    t.not(a!.s, b!.s);
    t.equal(b!.n, 0, "beta's role sees none of alpha");
  });
}

// The SQL route against a reader who looks past the views, on PostgreSQL and on the embedded database
// alike: base tables, partitions, catalogs and statistics, information_schema, files, large objects, COPY,
// dblink and query_to_xml are all refused or fail, and no answer holds anything of project beta.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { safeRunner, seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({ sql: { timeoutMs: 1000, concurrency: 4, embeddedMaxCost: 100_000 } });
t.teardown(() => s.close());
const { owner } = await seedTwoProjects(s);
const { expectSafe, REFUSED } = safeRunner(s, owner.cookie);

t.test("another project's rows through base tables, catalogs and files: refused", async (t) => {
  const base = ['events', 'sessions', 'visitors', 'issues', 'speed_samples', 'annotations', 'logs', 'projects'];
  for (const table of [...base, 'sql_roles', 'api_tokens', 'auth_sessions', 'rollup_day_totals'])
    await expectSafe(t, `select * from public.${table}`, REFUSED);
  await expectSafe(t, 'select * from "public"."events"', REFUSED);
  await expectSafe(t, 'select * from events_default', ['SQL_ERROR']);
  await expectSafe(t, 'select * from events_y2026m11', ['SQL_ERROR']);
  await expectSafe(t, 'select * from rollup_day_totals', ['SQL_ERROR']);
  await expectSafe(t, 'table public.events', REFUSED);
  for (const catalog of [
    'pg_catalog.pg_class',
    'pg_class',
    'pg_stats',
    'pg_stats_ext',
    'pg_statistic',
    'pg_stat_activity',
    'pg_roles',
    'pg_authid',
    'pg_largeobject',
    'pg_settings',
    'information_schema.tables',
    'information_schema.columns',
    'U&"\\0070g_class"',
  ])
    await expectSafe(t, `select * from ${catalog}`, REFUSED);
  await expectSafe(t, "select * from pg_stats where tablename = 'events'", REFUSED);
  for (const fn of [
    "pg_read_file('/etc/passwd')",
    "pg_read_binary_file('/etc/passwd')",
    "pg_ls_dir('.')",
    'lo_get(1)',
    "lo_import('/etc/passwd')",
    "lo_export(1, '/tmp/x')",
    "query_to_xml('select * from public.events', true, true, '')",
    "dblink('dbname=postgres', 'select 1')",
    "current_setting('loupe.sql_project')",
    'loupe_analyst_project()',
    'public.loupe_analyst_project()',
    'pg_catalog.pg_sleep(0)',
    '"pg_sleep"(0)',
    'PG_SLEEP(0)',
    "pg_catalog.set_config('loupe.sql_project', 'beta', true)",
    'txid_current()',
    'pg_terminate_backend(1)',
    'pg_cancel_backend(1)',
    'pg_reload_conf()',
    "to_regclass('public.events')",
  ])
    await expectSafe(t, `select ${fn}`, REFUSED);
  await expectSafe(t, "select * from pg_read_file('/etc/passwd') as f", REFUSED);
  await expectSafe(t, "select * from rows from (pg_read_file('/etc/passwd')) f", REFUSED);
  await expectSafe(t, "select (select pg_read_file('/etc/passwd')) from events limit 1", REFUSED);
  await expectSafe(t, "select * from events e join lateral pg_ls_dir('.') d on true", REFUSED);
  await expectSafe(t, "select * from dblink('dbname=postgres', 'select 1') as t(a int)", REFUSED);
  await expectSafe(t, 'copy events to stdout', REFUSED);
  await expectSafe(t, "copy (select * from public.events) to '/tmp/loupe-sql-leak'", REFUSED);
  await expectSafe(t, "copy events to program 'id'", REFUSED);
  await expectSafe(t, 'select e.pg_sleep from events e', ['SQL_ERROR']);
  await expectSafe(t, 'select session_user, current_user', REFUSED);
  await expectSafe(t, 'explain analyze select * from events', REFUSED);
  await expectSafe(t, 'explain select * from public.events', REFUSED);
});

// The SQL route against a caller who tries to change its project or its role, or to leave something on
// the session (SET, DO, a second statement, data-modifying CTEs, locks, LISTEN, PREPARE): every case is
// refused or fails, on PostgreSQL and on the embedded database alike, and the next query still sees alpha.
import t from 'tap';
import { startTestServer } from '../support/server.ts';
import { safeRunner, seedTwoProjects } from '../support/sql-fixture.ts';

const s = await startTestServer({ sql: { timeoutMs: 1000, concurrency: 4, embeddedMaxCost: 100_000 } });
t.teardown(() => s.close());
const { owner } = await seedTwoProjects(s);
const { run, expectSafe, REFUSED_OR_ERROR } = safeRunner(s, owner.cookie);

t.test('changing the project or the role: refused', async (t) => {
  for (const q of [
    "select set_config('loupe.sql_project', 'beta', true), (select count(*) from events)",
    "select * from events, (select set_config('role', 'postgres', true)) x",
    "select set_config('search_path', 'public', true)",
    "set loupe.sql_project = 'beta'",
    'set role postgres',
    'reset role',
    'set session authorization postgres',
    'reset session authorization',
    'set search_path = public',
    'reset all',
    "do $$ begin perform set_config('loupe.sql_project', 'beta', false); end $$",
    'select 1; select * from public.events',
    'select 1; -- a comment\ndelete from events',
    "select ';' as a; set role postgres",
    'select 1 /* ; */ ; select 2',
    'select $$;$$; set role postgres',
    "select 'a'';'; drop table events",
    "select E'\\';' ; select 2",
    'select 1 -- ;\n; select 2',
    'with d as (delete from events returning *) select count(*) from d',
    "with u as (update issues set status = 'resolved' returning *) select count(*) from u",
    "with i as (insert into annotations (title) values ('x') returning *) select * from i",
    'select * from events for update',
    'select * from events for share',
    'select * from events for no key update',
    'select * from (select * from events for key share) x',
    'select * into stolen from events',
    'create table stolen as select * from events',
    'create temp table t (a int)',
    "select nextval('rollup_build_seq')",
    "select setval('rollup_build_seq', 1)",
    'select pg_advisory_lock(7370001)',
    'select pg_try_advisory_lock(1)',
    'select pg_advisory_xact_lock(1)',
    'listen loupe',
    "notify loupe, 'x'",
    "select pg_notify('loupe', 'x')",
    'unlisten *',
    'prepare p as select * from public.events',
    'execute p',
    'deallocate all',
    'begin',
    'commit',
    'vacuum events',
    'analyze events',
    'select $1',
    'truncate events',
    "select xmlelement(name a, 'x')",
    "select * from xmltable('/a' passing '<a/>' columns x text)",
    'call loupe_sql_prepare_role(1)',
    'lock table events',
  ])
    await expectSafe(t, q, REFUSED_OR_ERROR);
  const after = await run('select count(*) as n from events');
  t.equal(after.body.data[0].n, 132, 'the next query still sees alpha, and only alpha');
});

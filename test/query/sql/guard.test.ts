// The SQL route's parser gate on its own: exactly one read-only SELECT over the analyst views and
// allowed functions passes; everything else is refused naming what, with the position in the caller's text.
import t from 'tap';
import { checkQuery } from '../../../src/query/sql/guard.ts';

const refusal = async (query: string) => {
  try {
    await checkQuery(query);
    return null;
  } catch (err) {
    const e = err as { code: string; message: string; details: { position?: number }[] };
    return { code: e.code, message: e.message, position: e.details[0]?.position };
  }
};

t.test('ordinary analyst queries pass, with their text and offset', async (t) => {
  for (const q of [
    'select path, count(distinct visitor_id) from events group by 1 order by 2 desc limit 10',
    "with s as (select * from events where name = 'signup') select count(*) from s join events c using (visitor_id)",
    'select percentile_cont(0.5) within group (order by lcp) from speed_samples',
    "select date_trunc('day', ts), count(*) filter (where name = 'error') from analyst.events group by 1",
    "select props->>'plan', jsonb_object_keys(props) from events",
    'select * from generate_series(1, 3) g cross join lateral unnest(array[1, 2]) u',
    'select count(*) over (partition by release order by ts rows between 1 preceding and current row) from events',
    "select extract(epoch from now() - interval '1 day'), current_date, pg_catalog.lower('X')",
    'values (1), (2)',
    'select 1 union all select 2 except select 3',
    'select * from events tablesample system (10)',
  ])
    t.equal(await refusal(q), null, q);
  const checked = await checkQuery('  select 1;  ');
  t.same([checked.text.trim(), checked.offset, checked.recursive], ['select 1', 0, false]);
  t.equal(
    (await checkQuery('with recursive r(n) as (select 1 union all select n + 1 from r) select * from r')).recursive,
    true,
  );
});

t.test('refused: statements other than SELECT, and a second statement however it is hidden', async (t) => {
  for (const [q, what] of [
    ['insert into events values (1)', /INSERT/],
    ['set role postgres', /SET \/ RESET/],
    ['reset role', /SET \/ RESET/],
    ['set session authorization postgres', /SET \/ RESET/],
    ['do $$ begin perform 1; end $$', /DO/],
    ['listen x', /LISTEN/],
    ['notify x', /NOTIFY/],
    ['prepare p as select 1', /PREPARE/],
    ['copy events to stdout', /COPY/],
    ['explain analyze select 1', /EXPLAIN/],
    ['select 1; select 2', /second/],
    ["select ';'; select 2", /second/],
    ['select 1 /* ; */ ; select 2', /second/],
    ['select $$;$$; select 2', /second/],
    ['select 1 -- ;\n; select 2', /second/],
    ['-- only a comment', /no statement/],
  ] as const) {
    const r = await refusal(q);
    t.equal(r?.code, 'SQL_REFUSED', q);
    t.match(r?.message, what, `${q}: names it`);
  }
});

t.test('refused: functions off the allow list, relations outside the analyst views, other nodes', async (t) => {
  for (const [q, what, position] of [
    ["select set_config('a', 'b', true)", /Function set_config/, 8],
    ['select pg_sleep(1)', /Function pg_sleep/, 8],
    ['select  pg_catalog.pg_sleep(1)', /Function pg_catalog\.pg_sleep/, 9],
    ['select public.lower(path) from events', /Function public\.lower/, 8],
    ["select query_to_xml('select 1', true, true, '')", /query_to_xml/, 8],
    ['select nextval(1)', /nextval/, 8],
    ['select pg_advisory_lock(1)', /pg_advisory_lock/, 8],
    ["select lo_import('/etc/passwd')", /lo_import/, 8],
    ['select * from public.events', /public\.events/, 15],
    ['select * from pg_stats', /pg_stats/, 15],
    ['select * from information_schema.tables', /information_schema\.tables/, 15],
    ['select * from U&"\\0070g_class"', /pg_class/, 15],
    ['select * from events for update', /FOR UPDATE/, undefined],
    ['with d as (delete from events returning *) select * from d', /DELETE/, undefined],
    ['select * into t from events', /SELECT INTO/, undefined],
    ['select $1', /parameter/, 8],
    ['select 1 operator(public.+) 1', /Operator public\.\+/, 10],
    ["select 'x'::public.t", /Type public\.t/, 13],
    ['select current_user', /CURRENT_USER/, 8],
    ['select é, pg_sleep(1)', /pg_sleep/, 11],
  ] as const) {
    const r = await refusal(q);
    t.equal(r?.code, 'SQL_REFUSED', q);
    t.match(r?.message, what, `${q}: names it`);
    t.equal(r?.position, position, `${q}: at character ${position}`);
  }
});

t.test('a syntax error is SQL_ERROR with the parser message and position', async (t) => {
  t.same(await refusal('select * frm events'), {
    code: 'SQL_ERROR',
    message: 'syntax error at or near "frm" (at character 10)',
    position: 10,
  });
});

-- The tables of this schema that autovacuum would vacuum or analyze now: a vacuum past its threshold of
-- dead rows (autovacuum_vacuum_threshold plus _scale_factor of the table: 50 and a fifth by default) or
-- of rows inserted since the last (_insert_threshold and _insert_scale_factor, 1,000 and a fifth; -1 none:
-- pages only ever inserted into are marked all-visible, which index-only scans need); an analyze past its
-- threshold of rows changed (_analyze_threshold and _analyze_scale_factor, 50 and a tenth). A table's own
-- settings come first (the events partitions are vacuumed every 20,000 new events, 0088), then the
-- database's. A table never vacuumed nor analyzed counts as empty (reltuples -1). The most overdue first.
-- The embedded database runs this instead of autovacuum, which it does not have (src/db/upkeep.ts); with
-- no autovacuum to turn off, a table's autovacuum_enabled is not consulted.
-- returns relation (the table's name), vacuum (boolean), analyze (boolean)
with t as (
  select s.relname, s.n_dead_tup::float8 as dead, s.n_ins_since_vacuum::float8 as inserted,
    s.n_mod_since_analyze::float8 as changed, greatest(c.reltuples, 0)::float8 as n, o.*
  from pg_stat_user_tables s
  join pg_class c on c.oid = s.relid
  cross join lateral (
    select
      coalesce(max(option_value) filter (where option_name = 'autovacuum_vacuum_threshold'),
        current_setting('autovacuum_vacuum_threshold'))::float8 as vt,
      coalesce(max(option_value) filter (where option_name = 'autovacuum_vacuum_scale_factor'),
        current_setting('autovacuum_vacuum_scale_factor'))::float8 as vs,
      coalesce(max(option_value) filter (where option_name = 'autovacuum_vacuum_insert_threshold'),
        current_setting('autovacuum_vacuum_insert_threshold'))::float8 as it,
      coalesce(max(option_value) filter (where option_name = 'autovacuum_vacuum_insert_scale_factor'),
        current_setting('autovacuum_vacuum_insert_scale_factor'))::float8 as "is",
      coalesce(max(option_value) filter (where option_name = 'autovacuum_analyze_threshold'),
        current_setting('autovacuum_analyze_threshold'))::float8 as at,
      coalesce(max(option_value) filter (where option_name = 'autovacuum_analyze_scale_factor'),
        current_setting('autovacuum_analyze_scale_factor'))::float8 as "as"
    from pg_options_to_table(c.reloptions)
  ) o
  where s.schemaname = current_schema() and c.relkind = 'r'
),
r as (
  select relname,
    dead / greatest(vt + vs * n, 1) as dead_r,
    case when it >= 0 then inserted / greatest(it + "is" * n, 1) else 0 end as inserted_r,
    changed / greatest(at + "as" * n, 1) as changed_r
  from t
)
select relname as relation, dead_r > 1 or inserted_r > 1 as vacuum, changed_r > 1 as analyze
from r
where dead_r > 1 or inserted_r > 1 or changed_r > 1
order by greatest(dead_r, inserted_r, changed_r) desc, relname

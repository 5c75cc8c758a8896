-- The tables of this schema that autovacuum would vacuum or analyze now, by its default thresholds: a
-- vacuum past 50 dead rows and a fifth of the table (autovacuum_vacuum_threshold, _scale_factor) or past
-- 1,000 rows inserted since the last and a fifth (the insert thresholds: pages only ever inserted into are
-- marked all-visible, which index-only scans need); an analyze past 50 rows changed and a tenth. A table
-- never vacuumed nor analyzed counts as empty (reltuples -1). The most overdue first.
-- The embedded database runs this instead of autovacuum, which it does not have (src/db/upkeep.ts).
-- returns relation (the table's name), vacuum (boolean), analyze (boolean)
with t as (
  select s.relname,
    s.n_dead_tup::float8 / (50 + 0.2 * greatest(c.reltuples, 0)) as dead,
    s.n_ins_since_vacuum::float8 / (1000 + 0.2 * greatest(c.reltuples, 0)) as inserted,
    s.n_mod_since_analyze::float8 / (50 + 0.1 * greatest(c.reltuples, 0)) as changed
  from pg_stat_user_tables s
  join pg_class c on c.oid = s.relid
  where s.schemaname = current_schema() and c.relkind = 'r'
)
select relname as relation, dead > 1 or inserted > 1 as vacuum, changed > 1 as analyze
from t
where dead > 1 or inserted > 1 or changed > 1
order by greatest(dead, inserted, changed) desc, relname

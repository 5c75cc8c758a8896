-- The partitions of events whose statistics lag the rows written into them: never analyzed with rows in
-- them, or changed since by more than a fifth of what they held then. A day's build plans its statements
-- from these statistics: written in bulk and not yet analyzed (rows inserted directly, a restore, the
-- embedded database, which runs no autovacuum), a partition reads as nearly empty and the page build
-- joined 20,000 events to 20,000 sessions in nested loops, 57–73 s against 0.3 s once analyzed. The
-- builder analyzes these before it builds (builder.ts); autovacuum's own threshold (a tenth) comes first
-- under steady traffic.
-- returns partition (the partition's table name)
select c.relname as partition
from pg_inherits i
join pg_class c on c.oid = i.inhrelid
join pg_stat_user_tables s on s.relid = c.oid
where i.inhparent = 'events'::regclass
  and s.n_mod_since_analyze > greatest(1000, case when c.reltuples > 0 then c.reltuples / 5 else 0 end)

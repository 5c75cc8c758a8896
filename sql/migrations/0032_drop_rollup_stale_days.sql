-- The day rollups are kept by the writers (0030): nothing reads the flush's stale marks, and the flush no
-- longer writes them.
drop table if exists rollup_stale_days;

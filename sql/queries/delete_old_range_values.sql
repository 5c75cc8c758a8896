-- Drops the kept range values (src/query/rollup/range-values.ts) computed more than seven days ago: a
-- dashboard's ranges move on every day, and a value read again is simply computed again.
-- returns deleted
with d as (delete from rollup_range_values where computed_at < now() - interval '7 days' returning 1)
select count(*)::int as deleted from d

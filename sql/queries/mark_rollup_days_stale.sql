-- Marks days of a project stale for the rollups (src/query/rollup): called in every flush transaction
-- with the distinct UTC days of its events. A mark that is already there is not rewritten (no row lock
-- shared by concurrent flushes); it is held FOR KEY SHARE instead, so a rebuild that deletes it waits
-- for this transaction to commit and then sees its events.
-- $1 project_id, $2 days (date[] as text[])
-- returns nothing useful (one row per mark that already existed)
with added as (
  insert into rollup_stale_days (project_id, day)
  select $1, d from unnest($2::date[]) d
  on conflict do nothing
)
select 1 as held from rollup_stale_days where project_id = $1 and day = any($2::date[]) for key share

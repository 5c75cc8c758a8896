-- The entry and exit rows of the pages a fold touched (fold_rollup_days.sql, earlier in the same
-- transaction) that it left without sessions: a build would not write them.
-- $1 project_id, $2 day (date), $3 pages (text[])
-- returns deleted
with d as (
  delete from rollup_day_entry r
  where r.project_id = $1 and r.day = $2::date and r.page = any($3::text[]) and r.sessions = 0
  returning 1
)
select count(*)::int as deleted from d

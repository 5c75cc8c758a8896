-- Clears one project's rollups of the UTC days [$2, $3) and the session-days' contributions, before a
-- rebuild in the same transaction (src/db/rollup-apply.ts), under the project's rollup lock.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns days (day rows deleted)
with d as (delete from rollup_days where project_id = $1 and day >= $2::date and day < $3::date returning 1),
  t as (delete from rollup_day_totals where project_id = $1 and day >= $2::date and day < $3::date),
  v as (delete from rollup_day_visitors where project_id = $1 and day >= $2::date and day < $3::date),
  s as (delete from rollup_day_split_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  p as (delete from rollup_day_pages where project_id = $1 and day >= $2::date and day < $3::date),
  pv as (delete from rollup_day_page_visitors where project_id = $1 and day >= $2::date and day < $3::date),
  dd as (delete from rollup_day_dims where project_id = $1 and day >= $2::date and day < $3::date),
  dp as (delete from rollup_day_props where project_id = $1 and day >= $2::date and day < $3::date),
  cs as (delete from rollup_session_contrib where project_id = $1 and day >= $2::date and day < $3::date),
  cp as (delete from rollup_session_page_contrib where project_id = $1 and day >= $2::date and day < $3::date),
  dv as (delete from rollup_day_values where project_id = $1 and day >= $2::date and day < $3::date)
select (select count(*) from d)::int as days

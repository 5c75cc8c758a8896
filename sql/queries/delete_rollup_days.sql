-- Clears one project's rollups of the UTC days [$2, $3) and their stale marks, the first step of a
-- rebuild (in the same transaction for ensureRollups, a transaction of its own in the builder): the
-- days are pending from here until build_rollup_days inserts their rollup_days rows again.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns marks (stale marks deleted)
with m as (delete from rollup_stale_days where project_id = $1 and day >= $2::date and day < $3::date returning 1),
  d as (delete from rollup_days where project_id = $1 and day >= $2::date and day < $3::date),
  t as (delete from rollup_day_totals where project_id = $1 and day >= $2::date and day < $3::date),
  v as (delete from rollup_day_visitors where project_id = $1 and day >= $2::date and day < $3::date),
  s as (delete from rollup_day_split_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  p as (delete from rollup_day_pages where project_id = $1 and day >= $2::date and day < $3::date),
  pv as (delete from rollup_day_page_visitors where project_id = $1 and day >= $2::date and day < $3::date),
  dd as (delete from rollup_day_dims where project_id = $1 and day >= $2::date and day < $3::date),
  da as (delete from rollup_day_acq where project_id = $1 and day >= $2::date and day < $3::date),
  dc as (delete from rollup_day_cross where project_id = $1 and day >= $2::date and day < $3::date),
  de as (delete from rollup_day_entry where project_id = $1 and day >= $2::date and day < $3::date),
  ds as (delete from rollup_day_entry_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  dp as (delete from rollup_day_props where project_id = $1 and day >= $2::date and day < $3::date),
  st as (delete from rollup_day_session_state where project_id = $1 and day >= $2::date and day < $3::date),
  sc as (delete from rollup_day_dim_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  sx as (delete from rollup_day_cross_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  sa as (delete from rollup_day_acq_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  sp as (delete from rollup_day_acq_pairs where project_id = $1 and day >= $2::date and day < $3::date),
  sm as (delete from rollup_day_session_parts where project_id = $1 and day >= $2::date and day < $3::date),
  pd as (delete from rollup_day_dim_pages where project_id = $1 and day >= $2::date and day < $3::date),
  pa as (delete from rollup_day_acq_pages where project_id = $1 and day >= $2::date and day < $3::date),
  nd as (delete from rollup_day_dim_names where project_id = $1 and day >= $2::date and day < $3::date),
  na as (delete from rollup_day_acq_names where project_id = $1 and day >= $2::date and day < $3::date),
  ed as (delete from rollup_day_dim_entry where project_id = $1 and day >= $2::date and day < $3::date),
  ea as (delete from rollup_day_acq_entry where project_id = $1 and day >= $2::date and day < $3::date),
  ps as (delete from rollup_day_value_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  pq as (delete from rollup_day_value_parts where project_id = $1 and day >= $2::date and day < $3::date),
  dpf as (delete from rollup_day_dim_page_facts where project_id = $1 and day >= $2::date and day < $3::date),
  apf as (delete from rollup_day_acq_page_facts where project_id = $1 and day >= $2::date and day < $3::date),
  app as (delete from rollup_day_acq_page_pairs where project_id = $1 and day >= $2::date and day < $3::date),
  sd as (delete from rollup_set_session_days where project_id = $1 and day >= $2::date and day < $3::date),
  sl as (delete from rollup_set_session_late where project_id = $1 and day >= $2::date and day < $3::date),
  ss as (delete from rollup_set_session_split where project_id = $1 and day >= $2::date and day < $3::date)
select (select count(*) from m)::int as marks

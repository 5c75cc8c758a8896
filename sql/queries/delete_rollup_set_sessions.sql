-- Deletes the session facts per set of values of one project's UTC days [$2, $3) (0089; the entry and exit
-- page rows per set and the facts per page path and event name, 0090; the page breakdown's facts per set,
-- 0092, and per pair of sets, 0099; the entry and exit page rows per pair of sets, 0094), their record and the lists of events folded
-- and sessions split since they were counted (0091, 0093): before they are counted again. The days get a new build_seq: values kept over their ranges
-- (range-values.ts) that read these rows count again, as after a fold.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns nothing
with c as (delete from rollup_day_dim_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  x as (delete from rollup_day_cross_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  a as (delete from rollup_day_acq_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  ap as (delete from rollup_day_acq_pairs where project_id = $1 and day >= $2::date and day < $3::date),
  m as (delete from rollup_day_session_parts where project_id = $1 and day >= $2::date and day < $3::date),
  de as (delete from rollup_day_dim_entry where project_id = $1 and day >= $2::date and day < $3::date),
  ae as (delete from rollup_day_acq_entry where project_id = $1 and day >= $2::date and day < $3::date),
  ce as (delete from rollup_day_cross_entry where project_id = $1 and day >= $2::date and day < $3::date),
  pc as (delete from rollup_day_value_sessions where project_id = $1 and day >= $2::date and day < $3::date),
  pp as (delete from rollup_day_value_parts where project_id = $1 and day >= $2::date and day < $3::date),
  dpf as (delete from rollup_day_dim_page_facts where project_id = $1 and day >= $2::date and day < $3::date),
  apf as (delete from rollup_day_acq_page_facts where project_id = $1 and day >= $2::date and day < $3::date),
  app as (delete from rollup_day_acq_page_pairs where project_id = $1 and day >= $2::date and day < $3::date),
  xpf as (delete from rollup_day_cross_page_facts where project_id = $1 and day >= $2::date and day < $3::date),
  sl as (delete from rollup_set_session_late where project_id = $1 and day >= $2::date and day < $3::date),
  ss as (delete from rollup_set_session_split where project_id = $1 and day >= $2::date and day < $3::date),
  seq as (
    update rollup_days set build_seq = nextval('rollup_build_seq')
    where project_id = $1 and day >= $2::date and day < $3::date)
delete from rollup_set_session_days where project_id = $1 and day >= $2::date and day < $3::date

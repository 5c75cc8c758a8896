-- A fold's step for the session facts per set of values (0089, 0090): they are not recounted (a session
-- a marked event touches would be taken out of and put back into every table of them), so the fold lists
-- the events it folds as the ones those facts lack (0091), and the sessions of its session marks that
-- fold_rollup_days.sql listed as split, which the facts' entry rows may hold as lying within the day
-- (0093), for the reads under filters to correct and the builder to count once there are many. Only for
-- a day whose facts are counted: an uncounted day is read from events anyway. After
-- create_rollup_fold_marks.sql and fold_rollup_days.sql, in the fold's transaction.
-- $1 project_id, $2 day (date)
-- returns nothing
with counted as (
  select 1 from rollup_set_session_days c where c.project_id = $1 and c.day = $2::date
),
split as (
  insert into rollup_set_session_split (project_id, day, session_id)
  select $1, $2::date, x.session_id from rollup_day_split_sessions x
  where x.project_id = $1 and x.day = $2::date and exists (select 1 from counted)
    and x.session_id in (
      select m.session_id from rollup_stale_days m
      where m.project_id = $1 and m.day = $2::date and m.event_id is null and m.session_id is not null)
  on conflict do nothing
)
insert into rollup_set_session_late (project_id, day, event_id, ts, session_id)
select $1, $2::date, m.id, m.ts, m.session_id from rollup_fold_marks m
where exists (select 1 from counted)
on conflict do nothing

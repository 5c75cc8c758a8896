-- A fold's step for the session facts per set of values (0089, 0090): they are not recounted (a session
-- a marked event touches would be taken out of and put back into every table of them), so the fold lists
-- the events it folds as the ones those facts lack (0091), for the reads under filters to add and the
-- builder to count once there are many. Only for a day whose facts are counted: an uncounted day is read
-- from events anyway. After create_rollup_fold_marks.sql, in the fold's transaction.
-- $1 project_id, $2 day (date)
-- returns nothing
insert into rollup_set_session_late (project_id, day, event_id, ts, session_id)
select $1, $2::date, m.id, m.ts, m.session_id from rollup_fold_marks m
where exists (select 1 from rollup_set_session_days c where c.project_id = $1 and c.day = $2::date)
on conflict do nothing

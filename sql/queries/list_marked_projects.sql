-- The projects among $1 with a marked day the builder would rebuild now (closed 5 minutes ago, and by the
-- rule of list_rollup_days_to_build.sql for marks of late events and sessions): the background builder's
-- pass looks at these alone, and at every project only when a day has closed or a pass ran out of time.
-- $1 project ids (text[]), $2 and $3 as list_rollup_days_to_build.sql's $3 and $4
-- returns project_id
select distinct x.project_id from (
  select s.project_id from rollup_stale_days s
  where s.project_id = any($1::text[]) and s.day < ((now() - interval '5 minutes') at time zone 'UTC')::date
  group by s.project_id, s.day
  having bool_or(s.event_id is null and s.session_id is null) or count(*) >= $2::int
    or min(s.marked_at) <= now() - make_interval(secs => $3::int)
) x

-- The projects among $1 with a stale mark on a day the builder may rebuild (closed 5 minutes ago, as
-- list_rollup_days_to_build.sql): the background builder's pass looks at these alone, and at every
-- project only when a day has closed or a pass ran out of time.
-- $1 project ids (text[])
-- returns project_id
select distinct s.project_id from rollup_stale_days s
where s.project_id = any($1::text[]) and s.day < ((now() - interval '5 minutes') at time zone 'UTC')::date

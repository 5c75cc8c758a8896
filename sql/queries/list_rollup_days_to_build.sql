-- The days the background builder should (re)build for one project, newest first: days marked stale,
-- and days from the project's first event without rollup rows. Only days closed a grace of 5 minutes
-- ago: a flush stamped before midnight does not mark its day (mark_rollup_days_stale.sql) and has
-- committed by then.
-- $1 project_id, $2 at most this many days
-- returns day ('YYYY-MM-DD')
with upto as (select ((now() - interval '5 minutes') at time zone 'UTC')::date as day),
first as (select (min(e.ts) at time zone 'UTC')::date as day from events e where e.project_id = $1)
select to_char(x.day, 'YYYY-MM-DD') as day from (
  select s.day from rollup_stale_days s, upto where s.project_id = $1 and s.day < upto.day
  union
  select d::date from first, upto, generate_series(first.day, upto.day - 1, interval '1 day') d
  where not exists (select 1 from rollup_days r where r.project_id = $1 and r.day = d::date)
) x
order by x.day desc
limit $2

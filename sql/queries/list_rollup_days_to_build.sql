-- The days the background builder should (re)build for one project, newest first: days without rollup
-- rows from the project's first event on, days marked stale as a whole, and days marked for late events
-- or stretched sessions alone once those marks are many ($3) or old ($4 seconds): reads add such
-- marks' share on their own (src/query/rollup/late.ts), so a trickle of late events into yesterday costs
-- a rebuild every few minutes, not one a pass (the same rule in list_marked_projects.sql). Only days
-- closed a grace of 5 minutes ago: a flush stamped before midnight does not mark its day
-- (mark_rollup_days_stale.sql) and has committed by then.
-- $1 project_id, $2 at most this many days, $3 late marks that make a day due, $4 their age in seconds that does
-- returns day ('YYYY-MM-DD')
with upto as (select ((now() - interval '5 minutes') at time zone 'UTC')::date as day),
first as (select (min(e.ts) at time zone 'UTC')::date as day from events e where e.project_id = $1)
select to_char(x.day, 'YYYY-MM-DD') as day from (
  select s.day from rollup_stale_days s, upto where s.project_id = $1 and s.day < upto.day
  group by s.day
  having bool_or(s.event_id is null and s.session_id is null) or count(*) >= $3::int
    or min(s.marked_at) <= now() - make_interval(secs => $4::int)
  union
  select d::date from first, upto, generate_series(first.day, upto.day - 1, interval '1 day') d
  where not exists (select 1 from rollup_days r where r.project_id = $1 and r.day = d::date)
) x
order by x.day desc
limit $2

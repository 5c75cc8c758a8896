-- The days the background builder should (re)build for one project, newest first. Only days that began a
-- grace of 5 minutes ago: a flush stamped before midnight does not mark the next day
-- (mark_rollup_days_stale.sql) and has committed by then.
-- - Days without rollup rows from the project's first event on, today included.
-- - A past day marked stale as a whole.
-- - A day marked for late events or stretched sessions alone (today: for the events written since its
--   build) once those marks are many ($3) or old ($4 seconds): reads add such marks' share on their own
--   (src/query/rollup/late.ts), so a trickle of late events into yesterday, or today's own traffic, costs a
--   rebuild every few minutes, not one a pass.
-- - Today marked as a whole (a flush of many of its events) once the last such mark is a minute old: while
--   large flushes keep coming, a rebuild would be marked whole again at once, and reads take today from
--   events meanwhile.
-- A rebuild of today also waits twenty times its last build's length (rollup_days.build_ms): today's
-- build grows with the day, and this keeps it to a twentieth of the builder's time.
-- The same rule picks the projects in list_marked_projects.sql.
-- $1 project_id, $2 at most this many days, $3 late marks that make a day due, $4 their age in seconds that does
-- returns day ('YYYY-MM-DD')
with upto as (select ((now() - interval '5 minutes') at time zone 'UTC')::date as day),
today as (select (now() at time zone 'UTC')::date as day),
first as (select (min(e.ts) at time zone 'UTC')::date as day from events e where e.project_id = $1)
select to_char(x.day, 'YYYY-MM-DD') as day from (
  select s.day from rollup_stale_days s, upto, today
  where s.project_id = $1 and s.day <= upto.day
  group by s.day, today.day
  having case
    when s.day < today.day then bool_or(s.event_id is null and s.session_id is null) or count(*) >= $3::int
      or min(s.marked_at) <= now() - make_interval(secs => $4::int)
    else coalesce(max(s.marked_at) filter (where s.event_id is null and s.session_id is null)
        <= now() - interval '1 minute', count(*) >= $3::int or min(s.marked_at) <= now() - make_interval(secs => $4::int))
      and not exists (
        select 1 from rollup_days r
        where r.project_id = $1 and r.day = s.day
          and r.built_at > now() - make_interval(secs => 20 * coalesce(r.build_ms, 0) / 1000.0))
  end
  union
  select d::date from first, upto, generate_series(first.day, upto.day, interval '1 day') d
  where not exists (select 1 from rollup_days r where r.project_id = $1 and r.day = d::date)
) x
order by x.day desc
limit $2

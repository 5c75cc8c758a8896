-- The days the background builder should build, rebuild or fold for one project, newest first. Only days
-- that began a grace of 5 minutes ago: a flush stamped before midnight does not mark the next day
-- (mark_rollup_days_stale.sql) and has committed by then.
-- - Days without rollup rows from the project's first event on, today included: built.
-- - A past day marked stale as a whole: rebuilt.
-- - Today marked as a whole (a flush of many of its events) once the last such mark is a minute old, or
--   the first five minutes old, and twenty times its last build's length (rollup_days.build_ms) after that
--   build: while large flushes keep coming, a rebuild would be marked whole again at once, and today's
--   build grows with the day; but under steady traffic the flushes never pause for a minute, and without
--   a rebuild the day's marks (one a flush) would gather all day, each pass counting them.
-- - A day before yesterday with more than 5,000 marks is rebuilt by the same rule: such a day keeps no
--   held state of its sessions (0086), so a fold counts each touched session from all its events, which
--   at 10M events came near a rebuild (10,000 marks: 26 s against 34 s). Today and yesterday are folded
--   however many marks they gather: a session going on costs its own share, and a rebuild of today
--   under traffic (39 s at 1M beside 2,000 events a second) leaves it pending, read from events,
--   throughout.
-- - A built day marked for single events or stretched sessions alone (a trickle of late events into
--   yesterday, today's own traffic) once those marks are many ($3) or old ($4 seconds): folded
--   (src/query/rollup/fold.ts); today not before three times its last fold's length after that fold's
--   start (a day of steady traffic would otherwise be folded every pass; a fold then takes at most a third
--   of a core, and at 2,000 events a second today stays far under the 20,000 marks that reads patch). Until then reads add
--   the marks' share on their own (src/query/rollup/late.ts), and each fold makes the values kept over
--   the day's ranges count again, so folds wait for marks to gather.
-- The same rule picks the projects in list_marked_projects.sql.
-- $1 project_id, $2 at most this many days, $3 marks that make a day due, $4 their age in seconds that does
-- returns day ('YYYY-MM-DD'), fold (whether its marks are folded rather than the day rebuilt)
with upto as (select ((now() - interval '5 minutes') at time zone 'UTC')::date as day),
today as (select (now() at time zone 'UTC')::date as day),
first as (select (min(e.ts) at time zone 'UTC')::date as day from events e where e.project_id = $1),
marked as (
  select s.day, bool_or(s.event_id is null and s.session_id is null) as whole, count(*) as marks,
    min(s.marked_at) as oldest, min(s.marked_at) filter (where s.event_id is null and s.session_id is null) as first_whole,
    max(s.marked_at) filter (where s.event_id is null and s.session_id is null) as last_whole
  from rollup_stale_days s, upto
  where s.project_id = $1 and s.day <= upto.day
  group by s.day
)
select to_char(x.day, 'YYYY-MM-DD') as day, x.fold from (
  select m.day, r.day is not null and not m.whole and (m.marks <= 5000 or m.day >= today.day - 1) as fold
  from marked m cross join today left join rollup_days r on r.project_id = $1 and r.day = m.day
  where case
    when r.day is null then true
    when m.whole or m.marks > 5000 and m.day < today.day - 1 then m.day < today.day or (coalesce(m.last_whole <= now() - interval '1 minute', true)
      or m.first_whole <= now() - interval '5 minutes')
      and r.built_at <= now() - make_interval(secs => 20 * coalesce(r.build_ms, 0) / 1000.0)
    else (m.marks >= $3::int or m.oldest <= now() - make_interval(secs => $4::int))
      and (m.day < today.day
        or coalesce(r.folded_at <= now() - make_interval(secs => 3 * coalesce(r.fold_ms, 0) / 1000.0), true))
  end
  union
  select d::date, false from first, upto, generate_series(first.day, upto.day, interval '1 day') d
  where not exists (select 1 from rollup_days r where r.project_id = $1 and r.day = d::date)
) x
order by x.day desc
limit $2

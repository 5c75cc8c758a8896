-- The UTC days in [$2, $3) of each project in $1 that a read cannot take from the rollups as they stand:
-- marked stale, or without rollup rows on or after the day of the project's first event (days before it
-- have no events, so no rows is their exact answer; a project without events has none pending).
-- `patchable`: the day is built and its marks are all
-- of late events or stretched sessions (mark_rollup_days_stale.sql), so a read that knows how may take
-- its rows and add the marked events' share (src/query/rollup/late.ts); any other such day reads events.
-- More event marks than loupe_patch_limit (0086: 20,000 today and yesterday, 5,000 before) are not
-- patchable either: adding their share recounts each touched session the day keeps no held state for
-- twice, which past that costs more than reading the day.
-- The marked days are found by a walk of the (project_id, day) index, one probe a marked day, and each
-- day's marks by the partial indexes of whole-day and event marks: a probe per day of the range let the
-- planner scan every mark for each day (31 scans of today's 45,000 marks under ingest: 0.2 s a read).
-- $1 project ids (text[]), $2 first day (date), $3 day after the last (date)
-- returns project_id, day ('YYYY-MM-DD'), patchable, in order
with recursive marked as (
  select p.id as project_id,
    (select min(s.day) from rollup_stale_days s
     where s.project_id = p.id and s.day >= $2::date and s.day < $3::date) as day
  from unnest($1::text[]) p(id)
  union all
  select m.project_id,
    (select min(s.day) from rollup_stale_days s
     where s.project_id = m.project_id and s.day > m.day and s.day < $3::date)
  from marked m where m.day is not null
)
select p.id as project_id, to_char(d, 'YYYY-MM-DD') as day,
  exists (select 1 from rollup_days r where r.project_id = p.id and r.day = d::date)
    and not exists (
      select 1 from rollup_stale_days s
      where s.project_id = p.id and s.day = d::date and s.event_id is null and s.session_id is null)
    and (select count(*) from (
      select 1 from rollup_stale_days s
      where s.project_id = p.id and s.day = d::date and s.event_id is not null
      limit loupe_patch_limit(d::date) + 1) c) <= loupe_patch_limit(d::date) as patchable
from unnest($1::text[]) p(id)
  cross join lateral (select (min(e.ts) at time zone 'UTC')::date as first from events e where e.project_id = p.id) f
  cross join generate_series($2::date, $3::date - 1, interval '1 day') d
where exists (select 1 from marked m where m.project_id = p.id and m.day = d::date)
   or (d::date >= f.first
       and not exists (select 1 from rollup_days r where r.project_id = p.id and r.day = d::date))
order by 1, 2

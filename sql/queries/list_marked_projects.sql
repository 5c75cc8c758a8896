-- The projects among $1 with a marked day the builder would build, rebuild or fold now (by the rule of
-- list_rollup_days_to_build.sql, which says why): the background builder's pass looks at these alone, and
-- at every project only when a day has closed or a pass ran out of time. Today's first build is found
-- here too: every event written into today carries a mark. So are the projects with a day whose session
-- facts per set lack folded events listed long enough ago (list_rollup_set_session_days_to_build.sql):
-- after the last fold of a day its list would otherwise wait for the next marks, or for midnight.
-- $1 project ids (text[]), $2 and $3 as list_rollup_days_to_build.sql's $3 and $4
-- returns project_id
with marked as (
  select s.project_id, s.day, bool_or(s.event_id is null and s.session_id is null) as whole, count(*) as marks,
    min(s.marked_at) as oldest, min(s.marked_at) filter (where s.event_id is null and s.session_id is null) as first_whole,
    max(s.marked_at) filter (where s.event_id is null and s.session_id is null) as last_whole
  from rollup_stale_days s
  where s.project_id = any($1::text[]) and s.day <= ((now() - interval '5 minutes') at time zone 'UTC')::date
  group by s.project_id, s.day
)
select distinct m.project_id
from marked m left join rollup_days r on r.project_id = m.project_id and r.day = m.day
where case
  when r.day is null then true
  when m.whole or m.marks > 5000 and m.day < (now() at time zone 'UTC')::date - 1 then m.day < (now() at time zone 'UTC')::date or (coalesce(m.last_whole <= now() - interval '1 minute', true)
      or m.first_whole <= now() - interval '5 minutes')
    and r.built_at <= now() - make_interval(secs => 20 * coalesce(r.build_ms, 0) / 1000.0)
  else (m.marks >= $2::int or m.oldest <= now() - make_interval(secs => $3::int))
    and (m.day < (now() at time zone 'UTC')::date
        or coalesce(r.folded_at <= now() - make_interval(secs => 3 * coalesce(r.fold_ms, 0) / 1000.0), true))
end
union
select c.project_id
from rollup_set_session_days c
join rollup_days r on r.project_id = c.project_id and r.day = c.day and not r.irregular
where c.project_id = any($1::text[])
  and c.counted_at <= now() - make_interval(secs => 10 * coalesce(c.count_ms, 0) / 1000.0)
  and not exists (
    select 1 from rollup_stale_days m
    where m.project_id = c.project_id and m.day = c.day and m.event_id is null and m.session_id is null)
  and (
    exists (
      select 1 from rollup_set_session_late l
      where l.project_id = c.project_id and l.day = c.day and l.at <= now() - make_interval(secs => $3::int))
    or exists (
      select 1 from rollup_set_session_split l
      where l.project_id = c.project_id and l.day = c.day and l.at <= now() - make_interval(secs => $3::int)))

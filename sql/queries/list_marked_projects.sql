-- The projects among $1 with a marked day the builder would rebuild now (by the rule of
-- list_rollup_days_to_build.sql, which says why): the background builder's pass looks at these alone, and
-- at every project only when a day has closed or a pass ran out of time. Today's first build is found
-- here too: every event written into today carries a mark.
-- $1 project ids (text[]), $2 and $3 as list_rollup_days_to_build.sql's $3 and $4
-- returns project_id
select distinct x.project_id from (
  select s.project_id from rollup_stale_days s
  where s.project_id = any($1::text[]) and s.day <= ((now() - interval '5 minutes') at time zone 'UTC')::date
  group by s.project_id, s.day
  having case
    when s.day < (now() at time zone 'UTC')::date then bool_or(s.event_id is null and s.session_id is null)
      or count(*) >= $2::int or min(s.marked_at) <= now() - make_interval(secs => $3::int)
    else not exists (select 1 from rollup_days r where r.project_id = s.project_id and r.day = s.day)
      or coalesce(max(s.marked_at) filter (where s.event_id is null and s.session_id is null)
        <= now() - interval '1 minute', count(*) >= $2::int or min(s.marked_at) <= now() - make_interval(secs => $3::int))
      and not exists (
        select 1 from rollup_days r
        where r.project_id = s.project_id and r.day = s.day
          and r.built_at > now() - make_interval(secs => 20 * coalesce(r.build_ms, 0) / 1000.0))
  end
) x

-- The built days of one project whose session facts per set of values (0089, 0090) are to be counted,
-- newest first: those not counted (the day was built before those tables, or a test deleted them), and
-- those whose lists of events folded into the day's rows and of sessions a fold split since the count
-- (0091 rollup_set_session_late, 0093 rollup_set_session_split, which reads under filters correct on their
-- own) have grown to $3 or their oldest is $4 seconds old.
-- Today too: its folds list its events all day, and a read under filters adds each listed event's session
-- (past loupe_patch_limit it reads the day from events). A day is counted again at most once every ten
-- lengths of its last count (0101): today's grows with the day, and under steady traffic its list is due
-- again as soon as it is emptied. Not a day marked as a whole, which its rebuild counts, nor an irregular
-- one. A day with event marks is counted: the count leaves the marked events out, as the build does, and
-- reads add them as they add the list's.
-- $1 project_id, $2 at most this many days, $3 this many listed make a day due, $4 so does one this many seconds old
-- returns day ('YYYY-MM-DD')
select to_char(r.day, 'YYYY-MM-DD') as day from rollup_days r
left join rollup_set_session_days c on c.project_id = r.project_id and c.day = r.day
where r.project_id = $1 and not r.irregular
  and not exists (
    select 1 from rollup_stale_days m
    where m.project_id = r.project_id and m.day = r.day and m.event_id is null and m.session_id is null)
  and (c.day is null or c.counted_at <= now() - make_interval(secs => 10 * coalesce(c.count_ms, 0) / 1000.0))
  and (
    c.day is null
    or exists (
      select 1 from rollup_set_session_late l
      where l.project_id = r.project_id and l.day = r.day and l.at <= now() - make_interval(secs => $4))
    or exists (
      select 1 from rollup_set_session_split l
      where l.project_id = r.project_id and l.day = r.day and l.at <= now() - make_interval(secs => $4))
    or (select count(*) from (
      (select 1 from rollup_set_session_late l where l.project_id = r.project_id and l.day = r.day limit $3)
      union all
      (select 1 from rollup_set_session_split l where l.project_id = r.project_id and l.day = r.day limit $3)) c)
      >= $3)
order by r.day desc
limit $2

-- The built days of one project whose session facts per set of values are not counted (0089: a fold
-- deleted them, or the day was built before that table), newest first. Only days that closed over 5
-- minutes ago: today is folded every few seconds under traffic, and each fold deletes them again. Not a
-- day with any stale mark either: a read under filters takes such a day from events anyway, and its fold
-- or rebuild would delete what was counted (a rebuild counts them itself).
-- $1 project_id, $2 at most this many days
-- returns day ('YYYY-MM-DD')
select to_char(r.day, 'YYYY-MM-DD') as day from rollup_days r
where r.project_id = $1 and r.day < ((now() - interval '5 minutes') at time zone 'UTC')::date and not r.irregular
  and not exists (select 1 from rollup_set_session_days c where c.project_id = r.project_id and c.day = r.day)
  and not exists (select 1 from rollup_stale_days m where m.project_id = r.project_id and m.day = r.day)
order by r.day desc
limit $2

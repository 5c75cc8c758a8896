-- Drops log-stream lines older than seven days.
-- returns the number of lines deleted
with gone as (delete from logs where ts < now() - interval '7 days' returning 1)
select count(*)::int as deleted from gone

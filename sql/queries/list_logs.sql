-- Log-stream lines of a project, filtered, newest first (without a cursor) or oldest first after one.
-- $1 project_id, $2 after id or null, $3 level, $4 kind, $5 source, $6 visitor, $7 q (substring), $8 limit
-- returns id, ts, level, kind, source, message, data, visitor, session
select id::text, ts, level, kind, source, message, data, visitor, session
from logs
where project_id = $1
  and ts >= now() - interval '7 days' -- the stream keeps seven days; the logs job deletes what is older
  and ($2::bigint is null or id > $2::bigint)
  and ($3::text is null or level = $3) and ($4::text is null or kind = $4) and ($5::text is null or source = $5)
  and ($6::text is null or visitor = $6)
  and ($7::text is null or strpos(lower(message), lower($7)) > 0)
order by case when $2::bigint is null then -id else id end
limit $8

-- A session's events in order, after a keyset cursor.
-- $1 project_id, $2 session id, $3 cursor ts or null, $4 cursor id, $5 limit
select id, name, ts, path, route, title, referrer, props
from events
where project_id = $1 and session_id = $2
  and ($3::timestamptz is null or (ts, id) > ($3::timestamptz, $4::text))
order by ts, id
limit $5

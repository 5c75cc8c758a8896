-- The visitor's stored session a late event belongs to: the one whose span, widened by the gap on both sides,
-- holds the event's time; of several (the event bridges two), the nearest, then the earliest. Sessions that
-- started more than a day before the window are not looked at (the (project_id, visitor_id, started_at)
-- index bounds the scan; a session that long is a crawler's).
-- $1 project_id, $2 visitor_id, $3 the event's time, $4 the gap in milliseconds
-- returns id, started_at, last_activity
select id, started_at, last_activity
from sessions
where project_id = $1 and visitor_id = $2
  and started_at <= $3::timestamptz + $4 * interval '1 millisecond'
  and started_at >= $3::timestamptz - $4 * interval '1 millisecond' - interval '1 day'
  and last_activity >= $3::timestamptz - $4 * interval '1 millisecond'
order by greatest(started_at - $3::timestamptz, $3::timestamptz - last_activity, interval '0'), started_at
limit 1

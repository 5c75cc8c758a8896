-- The stored session each of several late events belongs to, in one statement: the actor asks once for
-- every late event that came while it waited for the last answer, not once an event (one lookup an event,
-- each behind a drain of the write queue, held back every batch behind it: ingest p50 of seconds at 1% late
-- events beside dashboard reads). For each event, the visitor's session whose span, widened by the gap on
-- both sides, holds the event's time; of several (the event bridges two), the nearest, then the earliest.
-- Sessions that started more than a day before the window are not looked at (the (project_id, visitor_id,
-- started_at) index bounds each probe; a session that long is a crawler's).
-- $1 project_id, $2 visitor ids (text[]), $3 the events' times (timestamptz[] as text[]), $4 the gap in milliseconds
-- returns i (the event's 1-based position in $2/$3), id, started_at, last_activity: a row for each event that has one
select x.i, s.id, s.started_at, s.last_activity
from unnest($2::text[], $3::timestamptz[]) with ordinality as x(visitor_id, at, i)
cross join lateral (
  select id, started_at, last_activity
  from sessions
  where project_id = $1 and visitor_id = x.visitor_id
    and started_at <= x.at + $4 * interval '1 millisecond'
    and started_at >= x.at - $4 * interval '1 millisecond' - interval '1 day'
    and last_activity >= x.at - $4 * interval '1 millisecond'
  order by greatest(started_at - x.at, x.at - last_activity, interval '0'), started_at
  limit 1
) s

-- Sessions still live (activity within the 30-minute gap), to seed a project actor that starts while they
-- are: after a restart, a visitor's next event joins the session they were in instead of opening another.
-- Only sessions started since $3 are looked at: the (project_id, started_at) index then bounds the scan to
-- recent sessions (last_activity has no index of its own: checkpoints change it, and an index on it would
-- end their HOT updates). The most recently active $4 come back, oldest activity first.
-- $1 project_id, $2 active since, $3 started since, $4 at most
-- returns id, visitor_id, started_at, last_activity, pageviews, events, entry_page, entry_at, exit_page, exit_at
select * from (
  select id, visitor_id, started_at, last_activity, pageviews, events, entry_page, entry_at, exit_page, exit_at
  from sessions
  where project_id = $1 and started_at >= $3 and last_activity >= $2
  order by last_activity desc
  limit $4
) live
order by last_activity

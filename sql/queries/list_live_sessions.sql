-- Sessions still live (activity in the last 30 minutes), to seed a project actor after a restart.
-- $1 project_id, $2 since
-- returns id, visitor_id, started_at, last_activity, pageviews, events, entry_page, exit_page
select id, visitor_id, started_at, last_activity, pageviews, events, entry_page, exit_page
from sessions where project_id = $1 and last_activity >= $2

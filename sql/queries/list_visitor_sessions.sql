-- Every session of a visitor, newest first.
-- $1 project_id, $2 visitor id
-- returns id, started_at, last_activity, pageviews, events, entry_page, exit_page, referrer
select id, started_at, last_activity, pageviews, events, entry_page, exit_page, referrer
from sessions where project_id = $1 and visitor_id = $2
order by started_at desc

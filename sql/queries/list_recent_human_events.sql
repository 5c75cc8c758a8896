-- The project's human traffic of the last ten minutes (engagement reports aside), newest first, at most $3
-- events: what a project actor that starts then replays into its realtime window, so that "online" and the
-- pageviews a minute do not start from nothing after a restart. The (project_id, ts) index bounds the scan.
-- $1 project_id, $2 since, $3 at most
-- returns visitor_id, ts, path, country, is_pageview
select visitor_id, ts, path, country, name = 'pageview' as is_pageview
from events
where project_id = $1 and ts >= $2 and name <> 'engagement' and bot_score < 50 and not is_internal and not is_localhost
order by ts desc
limit $3

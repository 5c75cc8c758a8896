-- A page of an issue's error events, newest first.
-- $1 project_id, $2 issue_id, $3 cursor ts or null, $4 cursor id, $5 limit
-- returns id, ts, visitor_id, release, environment, path, props, device, browser, browser_version, os,
--   os_version, screen, viewport, language, connection
select id, ts, visitor_id, release, environment, path, props, device, browser, browser_version, os, os_version,
       screen, viewport, language, connection
from events
where project_id = $1 and issue_id = $2
  and ($3::timestamptz is null or (ts, id) < ($3::timestamptz, $4::text))
order by ts desc, id desc
limit $5

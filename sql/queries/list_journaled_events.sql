-- The events one journaled flush stored, to recompute its session and visitor deltas after a crash.
-- $1 project_id, $2 earliest ts, $3 latest ts, $4 event ids text[]
-- returns the stored columns the deltas read (ts as text in ISO form, as the ingest path has it)
select id, to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ts, name, visitor_id, session_id, path,
  referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, country, region, city,
  browser, browser_version, os, os_version, device, screen, viewport, language, connection,
  groups, user_id, environment, is_internal, is_localhost, bot_score
from events
where project_id = $1 and ts between $2 and $3 and id = any($4::text[])

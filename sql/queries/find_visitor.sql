-- One visitor's stored profile.
-- $1 project_id, $2 visitor id
select id, first_seen, last_seen, user_id, traits, experiments, country, region, city, postal_code, timezone,
       latitude, longitude, browser, browser_version, os, os_version, device, screen, viewport, language, connection,
       bot_score, bot_signals, is_internal
from visitors where project_id = $1 and id = $2

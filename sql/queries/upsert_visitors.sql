-- Adds one flush's new events to their visitors: first/last seen widen, identity, traits, groups and
-- experiments merge (later keys win, kept to 50, 20 and 50 keys: MAX_STORED_KEYS in src/db/flush-rows.ts),
-- device and place follow the newest event.
-- $1 project_id, $2 the rows in the flush's text form (src/db/flush-text.ts visitorRows, as insert_events.sql
--    reads them), sorted by id (rows are locked in key order), the fields in the order below, jsonb members
--    as JSON text
insert into visitors as v (project_id, id, first_seen, last_seen, user_id, traits, groups, experiments,
  country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
  device, screen, viewport, language, connection, bot_score, bot_signals, is_internal)
select $1, id, first_seen, last_seen, user_id, traits::jsonb, groups::jsonb, experiments::jsonb,
  country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
  device, screen, viewport, language, connection, bot_score, bot_signals::jsonb, is_internal
from (
  select a[1] as id, a[2]::timestamptz as first_seen, a[3]::timestamptz as last_seen, a[4] as user_id,
    a[5]::json as traits, a[6]::json as groups, a[7]::json as experiments, a[8] as country, a[9] as region,
    a[10] as city, a[11] as postal_code, a[12] as timezone, a[13]::float8 as latitude, a[14]::float8 as longitude,
    a[15] as browser, a[16] as browser_version, a[17] as os, a[18] as os_version, a[19] as device, a[20] as screen,
    a[21] as viewport, a[22] as language, a[23] as connection, a[24]::smallint as bot_score, a[25]::json as bot_signals,
    a[26]::boolean as is_internal
  from unnest(string_to_array($2::text, E'\n')) as line,
    lateral (
      select case when line ~ E'\\\\[\\\\tnr]' then loupe_unescape_copy(string_to_array(line, E'\t', E'\\N'))
        else string_to_array(line, E'\t', E'\\N') end
      offset 0 -- evaluated once a line, not once a field
    ) as f(a)
) as r
on conflict (project_id, id) do update set
  first_seen  = least(v.first_seen, excluded.first_seen),
  last_seen   = greatest(v.last_seen, excluded.last_seen),
  user_id     = coalesce(excluded.user_id, v.user_id),
  traits      = loupe_merge_capped(v.traits, excluded.traits, 50),
  groups      = loupe_merge_capped(v.groups, excluded.groups, 20),
  experiments = loupe_merge_capped(v.experiments, excluded.experiments, 50),
  country = excluded.country, region = excluded.region, city = excluded.city, postal_code = excluded.postal_code,
  timezone = excluded.timezone, latitude = excluded.latitude, longitude = excluded.longitude,
  browser = excluded.browser, browser_version = excluded.browser_version, os = excluded.os,
  os_version = excluded.os_version, device = excluded.device,
  screen = coalesce(excluded.screen, v.screen), viewport = coalesce(excluded.viewport, v.viewport),
  language = coalesce(excluded.language, v.language), connection = coalesce(excluded.connection, v.connection),
  bot_signals = case when excluded.bot_score >= v.bot_score then excluded.bot_signals else v.bot_signals end,
  bot_score   = greatest(v.bot_score, excluded.bot_score),
  is_internal = v.is_internal or excluded.is_internal

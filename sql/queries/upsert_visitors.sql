-- Adds one flush's new events to their visitors: first/last seen widen, identity, traits, groups and
-- experiments merge (later keys win), device and place follow the newest event.
-- $1 project_id, $2 rows json (array of visitor rows, sorted by id: rows are locked in key order)
insert into visitors as v (project_id, id, first_seen, last_seen, user_id, traits, groups, experiments,
  country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
  device, screen, viewport, language, connection, bot_score, bot_signals, is_internal)
select $1, id, first_seen, last_seen, user_id, traits::jsonb, groups::jsonb, experiments::jsonb,
  country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
  device, screen, viewport, language, connection, bot_score, bot_signals::jsonb, is_internal
from json_to_recordset($2::text::json) as r(
  id text, first_seen timestamptz, last_seen timestamptz, user_id text, traits json, groups json, experiments json,
  country text, region text, city text, postal_code text, timezone text, latitude float8, longitude float8,
  browser text, browser_version text, os text, os_version text, device text, screen text, viewport text,
  language text, connection text, bot_score smallint, bot_signals json, is_internal boolean)
on conflict (project_id, id) do update set
  first_seen  = least(v.first_seen, excluded.first_seen),
  last_seen   = greatest(v.last_seen, excluded.last_seen),
  user_id     = coalesce(excluded.user_id, v.user_id),
  traits      = v.traits || excluded.traits,
  groups      = v.groups || excluded.groups,
  experiments = v.experiments || excluded.experiments,
  country = excluded.country, region = excluded.region, city = excluded.city, postal_code = excluded.postal_code,
  timezone = excluded.timezone, latitude = excluded.latitude, longitude = excluded.longitude,
  browser = excluded.browser, browser_version = excluded.browser_version, os = excluded.os,
  os_version = excluded.os_version, device = excluded.device,
  screen = coalesce(excluded.screen, v.screen), viewport = coalesce(excluded.viewport, v.viewport),
  language = coalesce(excluded.language, v.language), connection = coalesce(excluded.connection, v.connection),
  bot_signals = case when excluded.bot_score >= v.bot_score then excluded.bot_signals else v.bot_signals end,
  bot_score   = greatest(v.bot_score, excluded.bot_score),
  is_internal = v.is_internal or excluded.is_internal

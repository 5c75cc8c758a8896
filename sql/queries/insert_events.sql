-- Stores a flush's events and their de-duplication keys (src/db/flush-plan.ts), as if every event were new:
-- a key already stored (a retried event) fails the statement, and the transaction, with a unique violation
-- on ingest_dedup_pkey; the event store then drops the events whose keys are stored and writes the flush again.
-- Keys are inserted in id order (by code point, collate "C") so concurrent flushes lock them in one order.
-- $1 the events in the flush's text form (src/db/flush-text.ts): a line an event, its fields split by tabs
--    in the order of the columns below, \N for null; a line holding an escape is unescaped by
--    loupe_unescape_copy (migration 0080), the others are only split.
with input as materialized (
  select a[1] as project_id, a[2]::timestamptz as ts, a[3] as id, a[4] as name, a[5] as visitor_id,
    a[6] as session_id, a[7] as path, a[8] as route, a[9] as title, a[10] as host, a[11] as referrer,
    a[12] as referrer_domain, a[13] as channel, a[14] as utm_source, a[15] as utm_medium, a[16] as utm_campaign,
    a[17] as utm_term, a[18] as utm_content, a[19] as country, a[20] as region, a[21] as city, a[22] as browser,
    a[23] as browser_version, a[24] as os, a[25] as os_version, a[26] as device, a[27] as screen,
    a[28] as viewport, a[29] as language, a[30] as connection, a[31]::jsonb as props, a[32]::jsonb as groups,
    a[33] as user_id, a[34] as release, a[35] as environment, a[36]::boolean as is_internal,
    a[37]::boolean as is_localhost, a[38]::smallint as bot_score, a[39] as issue_id
  from unnest(string_to_array($1::text, E'\n')) as line,
    lateral (
      select case when line ~ E'\\\\[\\\\tnr]' then loupe_unescape_copy(string_to_array(line, E'\t', E'\\N'))
        else string_to_array(line, E'\t', E'\\N') end
      offset 0 -- evaluated once a line, not once a field
    ) as f(a)
),
keys as (
  insert into ingest_dedup (project_id, event_id, ts)
  select project_id, id, ts from input order by id collate "C"
)
insert into events (project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
  referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
  country, region, city, browser, browser_version, os, os_version, device, screen, viewport, language,
  connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score, issue_id)
select * from input

-- Claims the de-duplication keys of a flush's events and stores the events whose keys were new, in one
-- statement (one round trip): the write path of small flushes, and of embedded PGlite, whose socket has
-- no COPY FROM STDIN (big flushes on PostgreSQL claim keys, then COPY the same columns; src/db/event-copy.ts).
-- Keys are inserted in id order (by code point, collate "C", as the flush writer sorts them) so concurrent
-- flushes lock them in one order.
-- The rows come one of two ways, the other parameter null: as separated text ($2: rows split by U+001E,
-- fields by U+001F in the order below, U+001D alone for null), which the database splits about three
-- times faster than it reads JSON; or, for a flush with a text value holding one of those three
-- characters, as JSON ($3: an array of objects with the columns below).
-- $1 project_id, $2 rows as separated text or null, $3 rows json or null
-- returns event_id of every event that was NOT new (duplicates, usually none)
with input as (
  select a[1]::timestamptz as ts, a[2] as id, a[3] as name, a[4] as visitor_id, a[5] as session_id,
    a[6] as path, a[7] as route, a[8] as title, a[9] as host, a[10] as referrer, a[11] as referrer_domain, a[12] as channel,
    a[13] as utm_source, a[14] as utm_medium, a[15] as utm_campaign, a[16] as utm_term, a[17] as utm_content,
    a[18] as country, a[19] as region, a[20] as city, a[21] as browser, a[22] as browser_version, a[23] as os,
    a[24] as os_version, a[25] as device, a[26] as screen, a[27] as viewport, a[28] as language, a[29] as connection,
    a[30]::json as props, a[31]::json as groups, a[32] as user_id, a[33] as release, a[34] as environment,
    a[35]::boolean as is_internal, a[36]::boolean as is_localhost, a[37]::smallint as bot_score, a[38] as issue_id
  from unnest(string_to_array($2::text, E'\x1e')) as line, string_to_array(line, E'\x1f', E'\x1d') as a
  union all
  select * from json_to_recordset($3::text::json) as r(
    ts timestamptz, id text, name text, visitor_id text, session_id text,
    path text, route text, title text, host text, referrer text, referrer_domain text, channel text,
    utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text,
    country text, region text, city text, browser text, browser_version text, os text, os_version text, device text,
    screen text, viewport text, language text, connection text,
    props json, groups json, user_id text, release text, environment text,
    is_internal boolean, is_localhost boolean, bot_score smallint, issue_id text)
),
claimed as (
  insert into ingest_dedup (project_id, event_id, ts)
  select $1, id, ts from input order by id collate "C"
  on conflict do nothing
  returning event_id
),
stored as (
  insert into events (project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
    referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
    country, region, city, browser, browser_version, os, os_version, device, screen, viewport, language,
    connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score, issue_id)
  select $1, i.ts, i.id, i.name, i.visitor_id, i.session_id, i.path, i.route, i.title, i.host,
    i.referrer, i.referrer_domain, i.channel, i.utm_source, i.utm_medium, i.utm_campaign, i.utm_term, i.utm_content,
    i.country, i.region, i.city, i.browser, i.browser_version, i.os, i.os_version, i.device, i.screen, i.viewport, i.language,
    i.connection, i.props::jsonb, i.groups::jsonb, i.user_id, i.release, i.environment, i.is_internal, i.is_localhost, i.bot_score, i.issue_id
  from input i join claimed c on c.event_id = i.id
)
select i.id as event_id from input i where not exists (select 1 from claimed c where c.event_id = i.id)

-- Claims the de-duplication keys of a flush's events and stores the events whose keys were new, in one
-- statement (one round trip): the write path of small flushes, and of embedded PGlite, whose socket has
-- no COPY FROM STDIN (big flushes on PostgreSQL claim keys, then COPY the same columns; src/db/event-copy.ts).
-- Keys are inserted in id order so concurrent flushes lock them in one order.
-- $1 project_id, $2 rows json (array of objects with the columns below)
-- returns event_id of every event that was NOT new (duplicates, usually none)
with input as (
  select * from json_to_recordset($2::text::json) as r(
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
  select $1, id, ts from input order by id
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

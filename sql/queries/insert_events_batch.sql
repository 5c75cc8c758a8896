-- The group commit of one project's queued events, in one statement: de-duplicate by (project, id),
-- store the new events, fold them into sessions and visitors, keep Web Vitals samples.
-- Aggregates come from the rows actually inserted, so a retried event never counts twice.
-- $1 rows json (array of objects with the columns below)
-- returns id of every event inserted (the others were duplicates)
with input as (
  select * from json_to_recordset($1::text::json) as r(
    project_id text, ts timestamptz, id text, name text, visitor_id text, session_id text,
    path text, route text, title text, host text, referrer text, referrer_domain text, channel text,
    utm_source text, utm_medium text, utm_campaign text, utm_term text, utm_content text,
    country text, region text, city text, postal_code text, timezone text, latitude float8, longitude float8,
    browser text, browser_version text, os text, os_version text, device text,
    screen text, viewport text, language text, connection text,
    props jsonb, groups jsonb, user_id text, traits jsonb, experiments jsonb, release text, environment text,
    is_internal boolean, is_localhost boolean, bot_score smallint, bot_signals jsonb,
    lcp float8, inp float8, cls float8, fcp float8, ttfb float8, element text)
),
fresh as (
  insert into ingest_dedup (project_id, event_id, ts)
  select project_id, id, ts from input
  on conflict do nothing
  returning event_id
),
accepted as (
  select i.* from input i join fresh f on f.event_id = i.id
),
inserted as (
  insert into events (project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
    referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
    country, region, city, browser, browser_version, os, os_version, device, screen, viewport, language,
    connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score)
  select project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
    referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
    country, region, city, browser, browser_version, os, os_version, device, screen, viewport, language,
    connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score
  from accepted
  returning id
),
session_rows as (
  insert into sessions as s (project_id, id, visitor_id, started_at, last_activity, pageviews, events,
    entry_page, exit_page, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign,
    country, device, browser, os, environment, is_internal, is_localhost, bot_score)
  select project_id, session_id, min(visitor_id), min(ts), max(ts),
    count(*) filter (where name = 'pageview'),
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')),
    (array_agg(path order by ts) filter (where name = 'pageview'))[1],
    (array_agg(path order by ts desc) filter (where name = 'pageview'))[1],
    (array_agg(referrer order by ts))[1], (array_agg(referrer_domain order by ts))[1], (array_agg(channel order by ts))[1],
    (array_agg(utm_source order by ts))[1], (array_agg(utm_medium order by ts))[1], (array_agg(utm_campaign order by ts))[1],
    (array_agg(country order by ts))[1], (array_agg(device order by ts))[1], (array_agg(browser order by ts))[1],
    (array_agg(os order by ts))[1], (array_agg(environment order by ts))[1],
    bool_or(is_internal), bool_or(is_localhost), max(bot_score)
  from accepted
  where session_id <> ''
  group by project_id, session_id
  on conflict (project_id, id) do update set
    started_at    = least(s.started_at, excluded.started_at),
    last_activity = greatest(s.last_activity, excluded.last_activity),
    pageviews     = s.pageviews + excluded.pageviews,
    events        = s.events + excluded.events,
    entry_page    = case when excluded.started_at < s.started_at or s.entry_page is null
                         then coalesce(excluded.entry_page, s.entry_page) else s.entry_page end,
    exit_page     = case when excluded.last_activity >= s.last_activity
                         then coalesce(excluded.exit_page, s.exit_page) else s.exit_page end,
    is_internal   = s.is_internal or excluded.is_internal,
    bot_score     = greatest(s.bot_score, excluded.bot_score)
  returning 1
),
visitor_rows as (
  insert into visitors as v (project_id, id, first_seen, last_seen, user_id, traits, groups, experiments,
    country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
    device, screen, viewport, language, connection, bot_score, bot_signals, is_internal)
  select project_id, visitor_id, min(ts), max(ts),
    (array_agg(user_id order by ts desc) filter (where user_id is not null))[1],
    loupe_jsonb_merge(traits order by ts),
    loupe_jsonb_merge(groups order by ts),
    loupe_jsonb_merge(experiments order by ts),
    (array_agg(country order by ts desc))[1], (array_agg(region order by ts desc))[1], (array_agg(city order by ts desc))[1],
    (array_agg(postal_code order by ts desc))[1], (array_agg(timezone order by ts desc))[1],
    (array_agg(latitude order by ts desc))[1], (array_agg(longitude order by ts desc))[1],
    (array_agg(browser order by ts desc))[1], (array_agg(browser_version order by ts desc))[1],
    (array_agg(os order by ts desc))[1], (array_agg(os_version order by ts desc))[1], (array_agg(device order by ts desc))[1],
    (array_agg(screen order by ts desc) filter (where screen is not null))[1],
    (array_agg(viewport order by ts desc) filter (where viewport is not null))[1],
    (array_agg(language order by ts desc) filter (where language is not null))[1],
    (array_agg(connection order by ts desc) filter (where connection is not null))[1],
    max(bot_score), (array_agg(bot_signals order by bot_score desc, ts desc))[1], bool_or(is_internal)
  from accepted
  group by project_id, visitor_id
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
  returning 1
),
speed_rows as (
  insert into speed_samples (project_id, ts, event_id, visitor_id, path, route, device, country, environment,
    lcp, inp, cls, fcp, ttfb, element, bot_score)
  select project_id, ts, id, visitor_id, path, coalesce(route, path), device, country, environment,
    lcp, inp, cls, fcp, ttfb, element, bot_score
  from accepted where name = 'speed'
  returning 1
)
select id from inserted

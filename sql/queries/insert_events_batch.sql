-- The group commit of one project's queued events, in one statement: de-duplicate by (project, id),
-- store the new events, fold them into sessions and visitors, keep Web Vitals samples.
-- Aggregates come from the rows actually inserted, so a retried event never counts twice.
-- $1 rows json (array of objects with the columns below)
-- $2 occurrence rules json: for each issue status, what a new occurrence makes of it, as decided by the
--    issue-lifecycle machine: {"<status>": {"status", "regression" (true/false, or null to keep), "clearResolvedAt"}}
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
    lcp float8, inp float8, cls float8, fcp float8, ttfb float8, element text,
    issue_id text, issue_title text, issue_culprit text, issue_type text, issue_level text)
),
fresh as (
  insert into ingest_dedup (project_id, event_id, ts)
  select project_id, id, ts from input order by id
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
    connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score, issue_id)
  select project_id, ts, id, name, visitor_id, session_id, path, route, title, host,
    referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
    country, region, city, browser, browser_version, os, os_version, device, screen, viewport, language,
    connection, props, groups, user_id, release, environment, is_internal, is_localhost, bot_score, issue_id
  from accepted
  returning id
),
-- One sort per "first/last row of a group" (distinct on) instead of one per column and group.
session_first as (
  select distinct on (session_id) * from accepted where session_id <> '' order by session_id, ts
),
session_pages as (
  select session_id,
    (array_agg(path order by ts) filter (where name = 'pageview'))[1] as entry_page,
    (array_agg(path order by ts desc) filter (where name = 'pageview'))[1] as exit_page
  from accepted where session_id <> '' and name = 'pageview'
  group by session_id
),
session_totals as (
  select session_id, min(ts) as started_at, max(ts) as last_activity,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as events,
    bool_or(is_internal) as is_internal, bool_or(is_localhost) as is_localhost, max(bot_score) as bot_score
  from accepted where session_id <> ''
  group by session_id
),
session_rows as (
  insert into sessions as s (project_id, id, visitor_id, started_at, last_activity, pageviews, events,
    entry_page, exit_page, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign,
    country, device, browser, os, environment, is_internal, is_localhost, bot_score)
  select f.project_id, t.session_id, f.visitor_id, t.started_at, t.last_activity, t.pageviews, t.events,
    p.entry_page, p.exit_page, f.referrer, f.referrer_domain, f.channel, f.utm_source, f.utm_medium, f.utm_campaign,
    f.country, f.device, f.browser, f.os, f.environment, t.is_internal, t.is_localhost, t.bot_score
  from session_totals t
  join session_first f on f.session_id = t.session_id
  left join session_pages p on p.session_id = t.session_id
  order by t.session_id
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
-- A visitor's newest event of the flush carries their current identity, device and place.
visitor_latest as (
  select distinct on (visitor_id) * from accepted order by visitor_id, ts desc
),
visitor_totals as (
  select visitor_id, min(ts) as first_seen, max(ts) as last_seen, max(bot_score) as bot_score, bool_or(is_internal) as is_internal
  from accepted group by visitor_id
),
visitor_rows as (
  insert into visitors as v (project_id, id, first_seen, last_seen, user_id, traits, groups, experiments,
    country, region, city, postal_code, timezone, latitude, longitude, browser, browser_version, os, os_version,
    device, screen, viewport, language, connection, bot_score, bot_signals, is_internal)
  select l.project_id, t.visitor_id, t.first_seen, t.last_seen, l.user_id, l.traits, l.groups, l.experiments,
    l.country, l.region, l.city, l.postal_code, l.timezone, l.latitude, l.longitude, l.browser, l.browser_version,
    l.os, l.os_version, l.device, l.screen, l.viewport, l.language, l.connection, t.bot_score, l.bot_signals, t.is_internal
  from visitor_totals t join visitor_latest l on l.visitor_id = t.visitor_id
  order by t.visitor_id
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
issue_first as (
  select distinct on (issue_id) * from accepted where issue_id is not null order by issue_id, ts
),
issue_last as (
  select distinct on (issue_id) issue_id, release from accepted where issue_id is not null order by issue_id, ts desc
),
issue_totals as (
  select issue_id, count(*) as n, min(ts) as first_seen, max(ts) as last_seen
  from accepted where issue_id is not null group by issue_id
),
issue_rows as (
  insert into issues as i (project_id, id, fingerprint, title, culprit, type, level, count, first_seen, last_seen,
    first_release, last_release)
  select f.project_id, t.issue_id, t.issue_id, f.issue_title, f.issue_culprit, f.issue_type, f.issue_level, t.n,
    t.first_seen, t.last_seen, f.release, l.release
  from issue_totals t join issue_first f on f.issue_id = t.issue_id join issue_last l on l.issue_id = t.issue_id
  order by t.issue_id
  on conflict (project_id, id) do update set
    count         = i.count + excluded.count,
    first_seen    = least(i.first_seen, excluded.first_seen),
    last_seen     = greatest(i.last_seen, excluded.last_seen),
    first_release = coalesce(i.first_release, excluded.first_release),
    last_release  = coalesce(excluded.last_release, i.last_release),
    status        = $2::text::jsonb -> i.status ->> 'status',
    is_regression = coalesce(($2::text::jsonb -> i.status ->> 'regression')::boolean, i.is_regression),
    resolved_at   = case when ($2::text::jsonb -> i.status ->> 'clearResolvedAt')::boolean then null else i.resolved_at end
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

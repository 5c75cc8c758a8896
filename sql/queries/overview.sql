-- The overview's stored numbers for one project (the live members come from the actor). Human traffic
-- (bot score < 50, not internal, not localhost) in production, today (UTC) unless said otherwise.
-- $1 project_id
-- returns one row of json members: today, ingest, bots, errors, top_pages, referrers, countries, release
-- (speed comes from the speed reads, src/query/speed)
with today_sessions as (
  select * from sessions
  where project_id = $1 and started_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'
    and bot_score < 50 and not is_internal and not is_localhost and environment = 'production'
),
day_events as (
  select * from events
  where project_id = $1 and ts >= now() - interval '24 hours' and environment = 'production'
),
current_release as (
  select release, min(ts) as deployed_at from events
  where project_id = $1 and ts >= now() - interval '30 days' and release is not null
  group by release order by max(ts) desc limit 1
)
select
  (select json_build_object(
     'visitors', count(distinct visitor_id),
     'pageviews', coalesce(sum(pageviews), 0),
     'bounceRate', case when count(*) = 0 then 0 else (count(*) filter (where pageviews = 1 and events = 0))::float8 / count(*) end,
     'avgSessionSeconds', coalesce(avg(extract(epoch from last_activity - started_at)), 0))
   from today_sessions) as today,
  (select json_build_object('accepted', coalesce(sum(accepted), 0), 'duplicates', coalesce(sum(duplicates), 0),
     'rejected', coalesce(sum(rejected), 0), 'rateLimited', coalesce(sum(rate_limited), 0))
   from ingest_counters where project_id = $1 and hour >= date_trunc('hour', now()) - interval '23 hours') as ingest,
  (select json_build_object(
     'share', case when count(*) = 0 then 0 else (count(*) filter (where bot_score >= 50))::float8 / count(*) end)
   from day_events) as bot_share,
  (select json_build_object(
     'headless', count(*) filter (where bot_signals->>'headless' = 'true'),
     'webdriver', count(*) filter (where bot_signals->>'webdriver' = 'true'),
     'datacenterAsn', count(*) filter (where bot_signals->>'datacenterAsn' = 'true'))
   from visitors where project_id = $1 and last_seen >= now() - interval '24 hours') as bot_signals,
  (select json_build_object(
     'last30m', (select count(*) from day_events where name = 'error' and ts >= now() - interval '30 minutes'
                   and bot_score < 50 and not is_internal and not is_localhost),
     'openIssues', (select count(*) from issues where project_id = $1 and status = 'open'))) as errors,
  (select coalesce(json_agg(json_build_object('path', path, 'views', views) order by views desc, path), '[]')
   from (select path, count(*) as views from day_events
         where name = 'pageview' and bot_score < 50 and not is_internal and not is_localhost and path is not null
         group by path order by views desc, path limit 5) p) as top_pages,
  (select coalesce(json_agg(json_build_object('name', name, 'share', share) order by share desc, name), '[]')
   from (select coalesce(referrer_domain, 'Direct') as name, count(*)::float8 / sum(count(*)) over () as share
         from today_sessions group by 1 order by 2 desc, 1 limit 5) r) as referrers,
  (select coalesce(json_agg(json_build_object('code', code, 'share', share) order by share desc, code), '[]')
   from (select country as code, count(distinct visitor_id)::float8 / (select nullif(count(distinct visitor_id), 0) from today_sessions) as share
         from today_sessions where country is not null group by 1 order by 2 desc, 1 limit 5) c) as countries,
  (select json_build_object('current', release, 'deployedAt', deployed_at,
     'newIssuesSince', (select count(*) from issues where project_id = $1 and first_seen >= deployed_at))
   from current_release) as release

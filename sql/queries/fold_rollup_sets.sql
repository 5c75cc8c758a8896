-- The first statement of a fold's value rows (src/query/rollup/fold.ts): interns the sets of visitor-level
-- and acquisition values of the day's marked events that rollup_dim_sets and rollup_acq_sets lack, so the
-- fold statements after it find every set by its key (build_rollup_dim_days.sql and
-- build_rollup_acq_days.sql say what a set is).
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns dims, acqs (sets interned)
with ev as materialized (
  select e.* from (
    select distinct event_id, ts from rollup_stale_days
    where project_id = $1 and day = $2::date and event_id is not null
  ) m
  join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
  where e.name <> 'engagement'
),
d as (
  insert into rollup_dim_sets (project_id, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release)
  select distinct on (key) $1, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release
  from (
    select row(country, region, city, browser, browser_version, os, os_version, device, screen, language, release)::text as key, *
    from ev
  ) x
  order by key
  on conflict (project_id, key) do nothing
  returning 1
),
a as (
  insert into rollup_acq_sets (project_id, key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content)
  select distinct on (key) $1, key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content
  from (
    select row(referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content)::text as key, *
    from ev
  ) x
  order by key
  on conflict (project_id, key) do nothing
  returning 1
)
select (select count(*) from d)::int as dims, (select count(*) from a)::int as acqs

-- Builds the value rows per set of values of one project's UTC days [$2, $3) (after build_rollup_dim_days
-- and build_rollup_acq_days, which intern every set of the days' non-engagement events): per day, class,
-- set and page path (0089), and per day, class, set and event name (0090), the non-engagement events and
-- pageviews and the distinct visitors' 64-bit hashes, once per family and once per pair of sets of both
-- (0094), and per day, event name and path (0100). The page rows leave out events without a path (a
-- server's events); the name rows hold every non-engagement event; the path rows per name neither
-- pageviews nor events without a path.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns dim_pages, acq_pages, dim_names, acq_names, cross_pages, cross_names, path_names (rows inserted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.name, e.path, hashtextextended(e.visitor_id, 0) as h,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    row(e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release)::text as dim_key,
    row(e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content)::text as acq_key
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
    and e.name <> 'engagement'
),
i_dim_pages as (
  insert into rollup_day_dim_pages (project_id, day, set_id, tm, em, path, pageviews, events, visitors)
  select $1, x.day, s.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, dim_key, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4, 5
  ) x
  join rollup_dim_sets s on s.project_id = $1 and s.key = x.dim_key
  returning 1
),
i_acq_pages as (
  insert into rollup_day_acq_pages (project_id, day, set_id, tm, em, path, pageviews, events, visitors)
  select $1, x.day, s.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, acq_key, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4, 5
  ) x
  join rollup_acq_sets s on s.project_id = $1 and s.key = x.acq_key
  returning 1
),
i_dim_names as (
  insert into rollup_day_dim_names (project_id, day, set_id, tm, em, name, pageviews, events, visitors)
  select $1, x.day, s.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, dim_key, name, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4, 5
  ) x
  join rollup_dim_sets s on s.project_id = $1 and s.key = x.dim_key
  returning 1
),
i_acq_names as (
  insert into rollup_day_acq_names (project_id, day, set_id, tm, em, name, pageviews, events, visitors)
  select $1, x.day, s.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, acq_key, name, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4, 5
  ) x
  join rollup_acq_sets s on s.project_id = $1 and s.key = x.acq_key
  returning 1
),
i_cross_pages as (
  insert into rollup_day_cross_pages (project_id, day, dim_set_id, acq_set_id, tm, em, path, pageviews, events, visitors)
  select $1, x.day, d.id, a.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, dim_key, acq_key, path, count(*) filter (where name = 'pageview') as pageviews,
      count(*) as events, array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4, 5, 6
  ) x
  join rollup_dim_sets d on d.project_id = $1 and d.key = x.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = x.acq_key
  returning 1
),
i_cross_names as (
  insert into rollup_day_cross_names (project_id, day, dim_set_id, acq_set_id, tm, em, name, pageviews, events, visitors)
  select $1, x.day, d.id, a.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select day, tm, em, dim_key, acq_key, name, count(*) filter (where name = 'pageview') as pageviews,
      count(*) as events, array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4, 5, 6
  ) x
  join rollup_dim_sets d on d.project_id = $1 and d.key = x.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = x.acq_key
  returning 1
),
i_path_names as (
  insert into rollup_day_path_names (project_id, day, name, path, tm, em, events, visitors)
  select $1, day, name, path, tm, em, count(*), array_agg(distinct h)
  from ev where path is not null and name <> 'pageview' group by 2, 3, 4, 5, 6
  returning 1
)
select (select count(*) from i_dim_pages)::int as dim_pages, (select count(*) from i_acq_pages)::int as acq_pages,
  (select count(*) from i_dim_names)::int as dim_names, (select count(*) from i_acq_names)::int as acq_names,
  (select count(*) from i_cross_pages)::int as cross_pages, (select count(*) from i_cross_names)::int as cross_names,
  (select count(*) from i_path_names)::int as path_names

-- Builds the session facts per set of values of one project's UTC days [$2, $3) (0089; after
-- build_rollup_dim_days and build_rollup_acq_days, which intern every set of the days' non-engagement
-- events): each session-day with a non-engagement event, taken with all its events of the day (engagement
-- reports extend it), is counted in the cells of its class and sets when all its events share them, or
-- listed as mixed. Sessions that cross midnight are counted per day, clipped, as in rollup_day_totals: the
-- read's split-session correction makes them whole. The days are recorded as counted.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns cells (rows inserted into both cell tables), mixed (session-days listed)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.session_id, e.name, e.ts,
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
),
sd as materialized (
  select day, session_id, min(tm) as tm, min(em) as em, min(dim_key) as dim_key, min(acq_key) as acq_key,
    min(tm) = max(tm) and min(em) = max(em) and min(dim_key) = max(dim_key) as dim_pure,
    min(acq_key) = max(acq_key) as acq_pure,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    extract(epoch from max(ts) - min(ts)) * 1000 as duration_ms
  from ev
  group by 1, 2
  having count(*) filter (where name <> 'engagement') > 0
),
dim_cells as (
  insert into rollup_day_dim_sessions (project_id, day, set_id, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, sd.day, d.id, sd.tm, sd.em, count(*), sum(sd.pageviews), count(*) filter (where sd.pageviews = 1 and sd.custom = 0),
    sum(sd.duration_ms)
  from sd join rollup_dim_sets d on d.project_id = $1 and d.key = sd.dim_key
  where sd.dim_pure
  group by 1, 2, 3, 4, 5
  returning 1
),
cross_cells as (
  insert into rollup_day_cross_sessions (project_id, day, dim_set_id, acq_set_id, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, sd.day, d.id, a.id, sd.tm, sd.em, count(*), sum(sd.pageviews),
    count(*) filter (where sd.pageviews = 1 and sd.custom = 0), sum(sd.duration_ms)
  from sd
  join rollup_dim_sets d on d.project_id = $1 and d.key = sd.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = sd.acq_key
  where sd.dim_pure and sd.acq_pure
  group by 1, 2, 3, 4, 5, 6
  returning 1
),
mixed as (
  insert into rollup_day_mixed_sessions (project_id, day, session_id, dim_mixed)
  select $1, sd.day, sd.session_id, not sd.dim_pure from sd where not (sd.dim_pure and sd.acq_pure)
  returning 1
),
counted as (
  insert into rollup_set_session_days (project_id, day)
  select $1, d::date from generate_series($2::date, $3::date - 1, interval '1 day') d
  on conflict do nothing
)
select (select count(*) from dim_cells)::int + (select count(*) from cross_cells)::int as cells,
  (select count(*) from mixed)::int as mixed

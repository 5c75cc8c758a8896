-- Builds the crossed dimension rollups of one project's UTC days [$2, $3) (after build_rollup_dim_days
-- and build_rollup_acq_days, in the same transaction, which have interned every set of the days): per
-- day, class, visitor-level set and acquisition set, the non-engagement events and pageviews and the
-- distinct visitors' 64-bit hashes. The keys are those two statements' (a row of the values as text).
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns rows (day rows inserted)
with g as materialized (
  select (e.ts at time zone 'UTC')::date as day,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    row(e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release)::text as dim_key,
    row(e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content)::text as acq_key,
    count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
    array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
    and e.name <> 'engagement'
  group by 1, 2, 3, 4, 5
),
i_rows as (
  insert into rollup_day_cross (project_id, day, dim_set_id, acq_set_id, tm, em, pageviews, events, visitors)
  select $1, g.day, d.id, a.id, g.tm, g.em, g.pageviews, g.events, g.visitors
  from g
  join rollup_dim_sets d on d.project_id = $1 and d.key = g.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = g.acq_key
  returning 1
)
select (select count(*) from i_rows)::int as rows

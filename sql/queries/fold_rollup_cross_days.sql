-- Folds the marked events of one built day into its crossed dimension rows (as fold_rollup_dim_days.sql,
-- after fold_rollup_sets.sql in the same transaction, which has interned every set of the marked events;
-- build_rollup_cross_days.sql says what the rows hold).
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns rows (day rows written)
with g as materialized (
  select loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    row(e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release)::text as dim_key,
    row(e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content)::text as acq_key,
    count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
    array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
  from (
    select distinct event_id, ts from rollup_stale_days
    where project_id = $1 and day = $2::date and event_id is not null
  ) m
  join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
  where e.name <> 'engagement'
  group by 1, 2, 3, 4
),
i_rows as (
  insert into rollup_day_cross as r (project_id, day, dim_set_id, acq_set_id, tm, em, pageviews, events, visitors)
  select $1, $2::date, d.id, a.id, g.tm, g.em, g.pageviews, g.events, g.visitors
  from g
  join rollup_dim_sets d on d.project_id = $1 and d.key = g.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = g.acq_key
  on conflict (project_id, day, dim_set_id, acq_set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
)
select (select count(*) from i_rows)::int as rows

-- Folds the marked events of one built day into its visitor-level dimension rows (as fold_rollup_days.sql;
-- build_rollup_dim_days.sql says what they hold). Each row is counted per event, so the marked events
-- alone are grouped and added: their events and pageviews summed in, their visitors' hashes merged into
-- the row's set. Their sets of values are interned first (fold_rollup_sets.sql).
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns rows (day rows written)
with g as materialized (
  select loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release,
    count(*) filter (where e.name = 'pageview') as pageviews, count(*) as events,
    array_agg(distinct hashtextextended(e.visitor_id, 0)) as visitors
  from (
    select distinct event_id, ts from rollup_stale_days
    where project_id = $1 and day = $2::date and event_id is not null
  ) m
  join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
  where e.name <> 'engagement'
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13
),
k as materialized (
  select g.*, row(g.country, g.region, g.city, g.browser, g.browser_version, g.os, g.os_version, g.device, g.screen, g.language, g.release)::text as key
  from g
),
i_rows as (
  insert into rollup_day_dims as r (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, $2::date, s.id, k.tm, k.em, k.pageviews, k.events, k.visitors
  from k join rollup_dim_sets s on s.project_id = $1 and s.key = k.key
  on conflict (project_id, day, set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
)
select (select count(*) from i_rows)::int as rows

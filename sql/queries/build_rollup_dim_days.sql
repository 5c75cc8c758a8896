-- Builds the dimension rollups of one project's UTC days [$2, $3) (after delete_rollup_days, before
-- build_rollup_days records the day built; builder.ts): per day, class and set of dimension values, the non-engagement events and pageviews and
-- the distinct visitors (the 64-bit hashes build_rollup_days uses). New sets of values are interned in
-- rollup_dim_sets.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns sets (new sets interned), rows (day rows inserted)
with g as materialized (
  select (e.ts at time zone 'UTC')::date as day,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release,
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
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
),
k as materialized (
  select g.*, row(g.country, g.region, g.city, g.browser, g.browser_version, g.os, g.os_version, g.device, g.screen, g.language, g.release)::text as key
  from g
),
-- Rows this statement inserts are not visible to its own reads: the known sets and the new ones together.
new_sets as (
  insert into rollup_dim_sets (project_id, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release)
  select distinct on (key) $1, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release from k
  order by key
  on conflict (project_id, key) do nothing
  returning id, key
),
sets as (
  select id, key from new_sets
  union all
  select s.id, s.key from rollup_dim_sets s where s.project_id = $1 and s.key in (select key from k)
),
i_rows as (
  insert into rollup_day_dims (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, k.day, s.id, k.tm, k.em, k.pageviews, k.events, k.visitors from k join sets s on s.key = k.key
  returning 1
)
select (select count(*) from new_sets)::int as sets, (select count(*) from i_rows)::int as rows

-- Builds the acquisition rollups of one project's UTC days [$2, $3) (after delete_rollup_days, before
-- build_rollup_days records the day built; builder.ts), as build_rollup_dim_days.sql does the visitor-level ones: per day, class and set of
-- acquisition values, the non-engagement events and pageviews and the distinct visitors' 64-bit hashes.
-- New sets of values are interned in rollup_acq_sets.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns sets (new sets interned), rows (day rows inserted)
with g as materialized (
  select (e.ts at time zone 'UTC')::date as day,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content,
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
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
),
k as materialized (
  select g.*, row(g.referrer, g.referrer_domain, g.channel, g.utm_source, g.utm_medium, g.utm_campaign, g.utm_term, g.utm_content)::text as key
  from g
),
-- Rows this statement inserts are not visible to its own reads: the known sets and the new ones together.
new_sets as (
  insert into rollup_acq_sets (project_id, key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content)
  select distinct on (key) $1, key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content from k
  order by key
  on conflict (project_id, key) do nothing
  returning id, key
),
sets as (
  select id, key from new_sets
  union all
  select s.id, s.key from rollup_acq_sets s where s.project_id = $1 and s.key in (select key from k)
),
i_rows as (
  insert into rollup_day_acq (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, k.day, s.id, k.tm, k.em, k.pageviews, k.events, k.visitors from k join sets s on s.key = k.key
  returning 1
)
select (select count(*) from new_sets)::int as sets, (select count(*) from i_rows)::int as rows

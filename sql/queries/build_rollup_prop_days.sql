-- Builds the prop rollups of one project's UTC days [$2, $3) (after delete_rollup_days, before
-- build_rollup_days records the day built; builder.ts): per day, event name and class, one row for all the events of the name and one per prop
-- key and value, with the non-engagement events, pageviews and distinct visitor hashes. An error's
-- `stack` and `breadcrumbs` are left out: they differ with every occurrence (those keys read raw).
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns names, props (rows inserted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.name,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    hashtextextended(e.visitor_id, 0) as h, e.props
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
    and e.name <> 'engagement'
),
i_names as (
  insert into rollup_day_props (project_id, day, name, tm, em, key, value, pageviews, events, visitors)
  select $1, day, name, tm, em, null, null, count(*) filter (where name = 'pageview'), count(*), array_agg(distinct h)
  from ev group by day, name, tm, em
  returning 1
),
i_props as (
  insert into rollup_day_props (project_id, day, name, tm, em, key, value, pageviews, events, visitors)
  select $1, ev.day, ev.name, ev.tm, ev.em, p.key, p.value, count(*) filter (where ev.name = 'pageview'), count(*), array_agg(distinct ev.h)
  from ev, jsonb_each_text(ev.props) as p
  where ev.props <> '{}' and p.value is not null and not (ev.name = 'error' and p.key in ('stack', 'breadcrumbs'))
  group by ev.day, ev.name, ev.tm, ev.em, p.key, p.value
  returning 1
)
select (select count(*) from i_names)::int as names, (select count(*) from i_props)::int as props

-- Folds the marked events of one built day into its prop rows (as fold_rollup_dim_days.sql;
-- build_rollup_prop_days.sql says what they hold). The table has no key (a name's own row has no prop key
-- or value), so each row the marked events touch is taken out and written back with their share added.
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns rows (rows written)
with ev as materialized (
  select e.name, loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm,
    loupe_environment_bits(e.environment)::smallint as em, hashtextextended(e.visitor_id, 0) as h, e.props
  from (
    select distinct event_id, ts from rollup_stale_days
    where project_id = $1 and day = $2::date and event_id is not null
  ) m
  join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
  where e.name <> 'engagement'
),
delta as materialized (
  select name, tm, em, null::text as key, null::text as value, count(*) filter (where name = 'pageview') as pageviews,
    count(*) as events, array_agg(distinct h) as visitors
  from ev group by 1, 2, 3
  union all
  select ev.name, ev.tm, ev.em, p.key, p.value, count(*) filter (where ev.name = 'pageview'), count(*), array_agg(distinct ev.h)
  from ev, jsonb_each_text(ev.props) as p
  where ev.props <> '{}' and p.value is not null and not (ev.name = 'error' and p.key in ('stack', 'breadcrumbs'))
  group by 1, 2, 3, 4, 5
),
old as (
  delete from rollup_day_props r using delta d
  where r.project_id = $1 and r.day = $2::date and r.name = d.name and r.tm = d.tm and r.em = d.em
    and (r.key = d.key and r.value = d.value or r.key is null and d.key is null)
  returning row(r.name, r.tm, r.em, r.key, r.value)::text as k, r.pageviews, r.events, r.visitors
),
i_rows as (
  insert into rollup_day_props (project_id, day, name, tm, em, key, value, pageviews, events, visitors)
  select $1, $2::date, d.name, d.tm, d.em, d.key, d.value, d.pageviews + coalesce(o.pageviews, 0),
    d.events + coalesce(o.events, 0),
    array(select distinct h from unnest(d.visitors || coalesce(o.visitors, '{}')) h order by h)
  from delta d left join old o on o.k = row(d.name, d.tm, d.em, d.key, d.value)::text
  returning 1
)
select (select count(*) from i_rows)::int as rows

-- Folds the marked events of one built day into its rows counted per event (as fold_rollup_days.sql, after
-- fold_rollup_sets.sql in the same transaction, which has interned every set of values they name): the
-- visitor-level dimension, acquisition, crossed, per-set page (0089) and event name (0090), per-pair page
-- and event name (0094), path per event name (0100) and prop rows (their build statements say what each
-- holds). The marked events alone are grouped and added: their events and pageviews summed in, their
-- visitors' hashes merged into the row's set. `rollup_day_props` has no key (a name's own row has no prop
-- key or value), so each prop row the marked events touch is taken out and written back with their share.
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns dims, acqs, crossed, props, pages, names (rows written; names with the path rows per name)
with ev as materialized (
  select e.name, e.props, e.path, loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm,
    loupe_environment_bits(e.environment)::smallint as em, hashtextextended(e.visitor_id, 0) as h,
    row(e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release)::text as dim_key,
    row(e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content)::text as acq_key
  from (
    select distinct event_id, ts from rollup_stale_days
    where project_id = $1 and day = $2::date and event_id is not null
  ) m
  join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
  where e.name <> 'engagement'
),
g as (
  select tm, em, dim_key, acq_key, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
    array_agg(distinct h) as visitors
  from ev group by 1, 2, 3, 4
),
i_dims as (
  insert into rollup_day_dims as r (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.pageviews, x.events, x.visitors
  from (
    select tm, em, dim_key, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3
  ) x
  join rollup_dim_sets s on s.project_id = $1 and s.key = x.dim_key
  on conflict (project_id, day, set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_acqs as (
  insert into rollup_day_acq as r (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.pageviews, x.events, x.visitors
  from (
    select tm, em, acq_key, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3
  ) x
  join rollup_acq_sets s on s.project_id = $1 and s.key = x.acq_key
  on conflict (project_id, day, set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_crossed as (
  insert into rollup_day_cross as r (project_id, day, dim_set_id, acq_set_id, tm, em, pageviews, events, visitors)
  select $1, $2::date, d.id, a.id, g.tm, g.em, g.pageviews, g.events, g.visitors
  from g
  join rollup_dim_sets d on d.project_id = $1 and d.key = g.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = g.acq_key
  on conflict (project_id, day, dim_set_id, acq_set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_dim_pages as (
  insert into rollup_day_dim_pages as r (project_id, day, set_id, tm, em, path, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select tm, em, dim_key, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4
  ) x
  join rollup_dim_sets s on s.project_id = $1 and s.key = x.dim_key
  on conflict (project_id, day, set_id, tm, em, path) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_acq_pages as (
  insert into rollup_day_acq_pages as r (project_id, day, set_id, tm, em, path, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select tm, em, acq_key, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4
  ) x
  join rollup_acq_sets s on s.project_id = $1 and s.key = x.acq_key
  on conflict (project_id, day, set_id, tm, em, path) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_dim_names as (
  insert into rollup_day_dim_names as r (project_id, day, set_id, tm, em, name, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select tm, em, dim_key, name, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4
  ) x
  join rollup_dim_sets s on s.project_id = $1 and s.key = x.dim_key
  on conflict (project_id, day, set_id, tm, em, name) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_acq_names as (
  insert into rollup_day_acq_names as r (project_id, day, set_id, tm, em, name, pageviews, events, visitors)
  select $1, $2::date, s.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select tm, em, acq_key, name, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4
  ) x
  join rollup_acq_sets s on s.project_id = $1 and s.key = x.acq_key
  on conflict (project_id, day, set_id, tm, em, name) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_cross_pages as (
  insert into rollup_day_cross_pages as r (project_id, day, dim_set_id, acq_set_id, tm, em, path, pageviews, events, visitors)
  select $1, $2::date, d.id, a.id, x.tm, x.em, x.path, x.pageviews, x.events, x.visitors
  from (
    select tm, em, dim_key, acq_key, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev where path is not null group by 1, 2, 3, 4, 5
  ) x
  join rollup_dim_sets d on d.project_id = $1 and d.key = x.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = x.acq_key
  on conflict (project_id, day, dim_set_id, acq_set_id, tm, em, path) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_cross_names as (
  insert into rollup_day_cross_names as r (project_id, day, dim_set_id, acq_set_id, tm, em, name, pageviews, events, visitors)
  select $1, $2::date, d.id, a.id, x.tm, x.em, x.name, x.pageviews, x.events, x.visitors
  from (
    select tm, em, dim_key, acq_key, name, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
      array_agg(distinct h) as visitors
    from ev group by 1, 2, 3, 4, 5
  ) x
  join rollup_dim_sets d on d.project_id = $1 and d.key = x.dim_key
  join rollup_acq_sets a on a.project_id = $1 and a.key = x.acq_key
  on conflict (project_id, day, dim_set_id, acq_set_id, tm, em, name) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
),
i_path_names as (
  insert into rollup_day_path_names as r (project_id, day, name, path, tm, em, events, visitors)
  select $1, $2::date, name, path, tm, em, count(*), array_agg(distinct h)
  from ev where path is not null and name <> 'pageview' group by 3, 4, 5, 6
  on conflict (project_id, day, name, path, tm, em) do update set events = r.events + excluded.events,
    visitors = array(select distinct h from unnest(r.visitors || excluded.visitors) h order by h)
  returning 1
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
i_props as (
  insert into rollup_day_props (project_id, day, name, tm, em, key, value, pageviews, events, visitors)
  select $1, $2::date, d.name, d.tm, d.em, d.key, d.value, d.pageviews + coalesce(o.pageviews, 0),
    d.events + coalesce(o.events, 0),
    array(select distinct h from unnest(d.visitors || coalesce(o.visitors, '{}')) h order by h)
  from delta d left join old o on o.k = row(d.name, d.tm, d.em, d.key, d.value)::text
  returning 1
)
select (select count(*) from i_dims)::int as dims, (select count(*) from i_acqs)::int as acqs,
  (select count(*) from i_crossed)::int as crossed, (select count(*) from i_props)::int as props,
  (select count(*) from i_dim_pages)::int + (select count(*) from i_acq_pages)::int
    + (select count(*) from i_cross_pages)::int as pages,
  (select count(*) from i_dim_names)::int + (select count(*) from i_acq_names)::int
    + (select count(*) from i_cross_names)::int + (select count(*) from i_path_names)::int as names

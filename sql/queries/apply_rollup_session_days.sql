-- Brings the day rollups up to date for a set of one project's session-days: recomputes each from its
-- events (through the (project_id, session_id, ts) index), adds to rollup_day_totals and rollup_day_pages
-- the difference from what the session-day added last time (rollup_session_contrib,
-- rollup_session_page_contrib), and ORs its visitors into the visitor rows. The events of journal rows
-- this transaction claimed ($4) are added to the dimension, prop and value rows: every event is claimed once.
-- Writers of one project hold its rollup lock (src/db/rollup-apply.ts), so the contributions read here
-- are the ones the upserts below replace. Metric definitions follow src/query/stats.ts and metrics.ts
-- with the day as the range: a day row is the sum of its session-days' numbers.
-- $1 project_id, $2 session ids (text[]), $3 their UTC days (date[]), $4 ids of newly claimed events (text[])
-- returns sessions (session-days recomputed)
with keys as (select distinct k.session_id, k.day from unnest($2::text[], $3::date[]) as k(session_id, day)),
ev as materialized (
  select k.day, e.id, e.session_id, e.visitor_id, hashtextextended(e.visitor_id, 0) as h, e.name, e.ts, e.path, e.props,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release,
    e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content
  from keys k cross join lateral (
    select * from events e
    where e.project_id = $1 and e.session_id = k.session_id
      and e.ts >= (k.day::timestamp at time zone 'UTC') and e.ts < ((k.day + 1)::timestamp at time zone 'UTC')
  ) e
),
sels as (select (t * 3 + v)::smallint as sel, t, v from generate_series(0, 3) t, generate_series(0, 2) v),
-- every class (traffic bits × environment bits) with the selections that take it
cls as (
  select tm::smallint as tm, em::smallint as em, (-1 - (tm * 8 + em))::smallint as label, s.sel
  from generate_series(0, 15) tm, generate_series(0, 7) em, sels s
  where (tm >> s.t) & 1 = 1 and (em >> s.v) & 1 = 1
),
cmask as (select tm, em, bit_or(1 << sel) as mask from cls group by 1, 2),
lmap as (select sel as label, sel from sels union all select label, sel from cls),
-- A single-class session-day is counted once under its class label; a mixed one per selection. (Window
-- functions rather than joins between the statement's own rows throughout: the planner cannot estimate
-- their sizes, and nested loops over them cost seconds a thousand session-days.)
sd as materialized (
  select ev.*, min(tm) over w = max(tm) over w and min(em) over w = max(em) over w as single
  from ev window w as (partition by day, session_id)
),
es as materialized (
  select sd.*, s.sel as label from sd join sels s on (sd.tm >> s.t) & 1 = 1 and (sd.em >> s.v) & 1 = 1
  where not sd.single
  union all
  select sd.*, (-1 - (sd.tm * 8 + sd.em))::smallint from sd where sd.single
),
ss as materialized (
  select day, label, session_id, min(ts) as first_ts, max(ts) as last_ts,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where name <> 'engagement') as active
  from es group by 1, 2, 3
),
new_s as (
  select day, session_id, label, (active > 0)::int as sessions, pageviews::int, active::int as events,
    (active > 0 and pageviews = 1 and custom = 0)::int as bounces,
    case when active > 0 then extract(epoch from last_ts - first_ts) * 1000 else 0 end as duration_ms
  from ss
),
old_s as (
  select c.day, c.session_id, c.label, c.sessions, c.pageviews, c.events, c.bounces, c.duration_ms
  from rollup_session_contrib c join keys k on c.project_id = $1 and c.session_id = k.session_id and c.day = k.day
),
d_tot as (
  select x.day, l.sel, sum(x.sessions) as sessions, sum(x.pageviews) as pageviews, sum(x.events) as events,
    sum(x.bounces) as bounces, sum(x.duration_ms) as duration_ms
  from (
    select day, label, sessions, pageviews, events, bounces, duration_ms from new_s
    union all
    select day, label, -sessions, -pageviews, -events, -bounces, -duration_ms from old_s
  ) x join lmap l on l.label = x.label
  group by 1, 2
),
-- visitors only ever gain selections here (events are added, never changed: the PATCH rebuilds)
vnew as (
  select ev.day, ev.h, bit_or(m.mask)::smallint as mask from ev join cmask m on m.tm = ev.tm and m.em = ev.em
  where ev.name <> 'engagement' group by 1, 2
),
gain as (
  select n.day, n.mask & ~coalesce(v.sel_mask, 0::smallint) as bits
  from vnew n left join rollup_day_visitors v on v.project_id = $1 and v.day = n.day and v.visitor_hash = n.h
),
d_vis as (
  select g.day, s.sel, count(*) as visitors from gain g join sels s on g.bits & (1 << s.sel) <> 0 group by 1, 2
),
u_totals as (
  insert into rollup_day_totals as r (project_id, day, sel, visitors, sessions, pageviews, events, bounces, duration_ms)
  select $1, coalesce(t.day, g.day), coalesce(t.sel, g.sel), coalesce(g.visitors, 0), coalesce(t.sessions, 0),
    coalesce(t.pageviews, 0), coalesce(t.events, 0), coalesce(t.bounces, 0), coalesce(t.duration_ms, 0)
  from d_tot t full join d_vis g on g.day = t.day and g.sel = t.sel
  where coalesce(g.visitors, 0) <> 0 or t.sessions <> 0 or t.pageviews <> 0 or t.events <> 0 or t.bounces <> 0 or t.duration_ms <> 0
  on conflict (project_id, day, sel) do update set visitors = r.visitors + excluded.visitors, sessions = r.sessions + excluded.sessions,
    pageviews = r.pageviews + excluded.pageviews, events = r.events + excluded.events, bounces = r.bounces + excluded.bounces,
    duration_ms = r.duration_ms + excluded.duration_ms
),
u_visitors as (
  insert into rollup_day_visitors as r (project_id, day, visitor_hash, sel_mask)
  select $1, day, h, mask from vnew
  on conflict (project_id, day, visitor_hash) do update set sel_mask = r.sel_mask | excluded.sel_mask
  where r.sel_mask | excluded.sel_mask <> r.sel_mask
),
u_contrib as (
  insert into rollup_session_contrib as r (project_id, day, session_id, label, sessions, pageviews, events, bounces, duration_ms)
  select $1, day, session_id, label, sessions, pageviews, events, bounces, duration_ms from new_s
  on conflict (project_id, day, session_id, label) do update set sessions = excluded.sessions, pageviews = excluded.pageviews,
    events = excluded.events, bounces = excluded.bounces, duration_ms = excluded.duration_ms
),
x_contrib as (
  delete from rollup_session_contrib c
  using (select day, session_id, label from old_s except select day, session_id, label from new_s) o
  where c.project_id = $1 and c.day = o.day and c.session_id = o.session_id and c.label = o.label
),
-- Sessions with events outside the day (the checkpoint upserted their sessions rows first, in this
-- transaction): the reads' split-session correction takes them from here.
u_split as (
  insert into rollup_day_split_sessions (project_id, day, session_id)
  select $1, d.day, d.session_id from (select distinct day, session_id from ev) d
  left join sessions s on s.project_id = $1 and s.id = d.session_id
  where s.id is null or s.started_at < (d.day::timestamp at time zone 'UTC')
    or s.last_activity >= ((d.day + 1)::timestamp at time zone 'UTC')
  on conflict do nothing
),
-- A new build_seq for every day changed: ranges' kept values over it are computed again.
u_days as (
  insert into rollup_days as r (project_id, day, irregular)
  select $1, day, bool_or(v_min <> v_max)
  from (select day, session_id, min(visitor_id) as v_min, max(visitor_id) as v_max from ev group by 1, 2) x group by 2
  on conflict (project_id, day) do update set irregular = r.irregular or excluded.irregular,
    build_seq = nextval('rollup_build_seq'), built_at = now()
),
-- Pages: per session-day, label and page, as build_rollup_page_days.sql summed them per day. Every page
-- with a non-engagement event of the session-day counts the session (its numbers ride along each row).
sw as materialized (
  select es.*, min(ts) over w as s_first, max(ts) over w as s_last,
    count(*) filter (where name = 'pageview') over w as s_pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) over w as s_custom
  from es window w as (partition by day, label, session_id)
),
seq as (
  select sw.*, count(*) filter (where name = 'pageview') over (
    partition by label, session_id, day order by ts, id rows between unbounded preceding and current row) as pv_idx
  from sw where name in ('pageview', 'engagement')
),
facts as (
  select day, label, session_id, path, name, ts,
    max(time_ms) over page as reported_ms, max(scroll) over page as scroll_depth,
    min(ts) filter (where name = 'pageview') over (partition by label, session_id, day order by pv_idx
      range between 1 following and 1 following) as next_ts
  from seq
  window page as (partition by label, session_id, day, pv_idx)
),
new_p as materialized (
  select day, session_id, label, path as page,
    count(*) filter (where kind = 1 and name = 'pageview')::int as pageviews, count(*) filter (where kind = 1)::int as events,
    1 as sessions, max((s_pageviews = 1 and s_custom = 0)::int) as bounces,
    max(extract(epoch from s_last - s_first) * 1000) as duration_ms, max(s_pageviews)::int as session_pageviews,
    coalesce(sum(time_ms), 0) as time_sum, count(time_ms)::int as time_count,
    coalesce(sum(scroll), 0) as scroll_sum, count(scroll)::int as scroll_count
  from (
    select 1 as kind, day, session_id, label, path, name, s_pageviews, s_custom, s_first, s_last, null::float8 as time_ms, null::float8 as scroll
    from sw where name <> 'engagement' and path is not null
    union all
    select 2, day, session_id, label, path, name, null, null, null, null,
      case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end, scroll_depth
    from facts where name = 'pageview' and path is not null
  ) x
  group by day, session_id, label, path
),
old_p as (
  select c.* from rollup_session_page_contrib c join keys k on c.project_id = $1 and c.session_id = k.session_id and c.day = k.day
),
d_pages as (
  select x.day, l.sel, x.page, sum(x.pageviews) as pageviews, sum(x.events) as events, sum(x.sessions) as sessions,
    sum(x.bounces) as bounces, sum(x.duration_ms) as duration_ms, sum(x.session_pageviews) as session_pageviews,
    sum(x.time_sum) as time_sum, sum(x.time_count) as time_count, sum(x.scroll_sum) as scroll_sum, sum(x.scroll_count) as scroll_count
  from (
    select day, label, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews, time_sum, time_count, scroll_sum, scroll_count
    from new_p
    union all
    select day, label, page, -pageviews, -events, -sessions, -bounces, -duration_ms, -session_pageviews, -time_sum, -time_count,
      -scroll_sum, -scroll_count
    from old_p
  ) x join lmap l on l.label = x.label
  group by 1, 2, 3
),
u_pages as (
  insert into rollup_day_pages as r (project_id, day, sel, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews,
    time_sum, time_count, scroll_sum, scroll_count)
  select $1, day, sel, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews, time_sum, time_count, scroll_sum, scroll_count
  from d_pages
  where pageviews <> 0 or events <> 0 or sessions <> 0 or bounces <> 0 or duration_ms <> 0 or session_pageviews <> 0
    or time_sum <> 0 or time_count <> 0 or scroll_sum <> 0 or scroll_count <> 0
  on conflict (project_id, day, sel, page) do update set pageviews = r.pageviews + excluded.pageviews, events = r.events + excluded.events,
    sessions = r.sessions + excluded.sessions, bounces = r.bounces + excluded.bounces, duration_ms = r.duration_ms + excluded.duration_ms,
    session_pageviews = r.session_pageviews + excluded.session_pageviews, time_sum = r.time_sum + excluded.time_sum,
    time_count = r.time_count + excluded.time_count, scroll_sum = r.scroll_sum + excluded.scroll_sum,
    scroll_count = r.scroll_count + excluded.scroll_count
),
u_page_contrib as (
  insert into rollup_session_page_contrib as r (project_id, day, session_id, label, page, pageviews, events, sessions, bounces,
    duration_ms, session_pageviews, time_sum, time_count, scroll_sum, scroll_count)
  select $1, day, session_id, label, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews, time_sum, time_count,
    scroll_sum, scroll_count
  from new_p
  on conflict (project_id, day, session_id, label, page) do update set pageviews = excluded.pageviews, events = excluded.events,
    sessions = excluded.sessions, bounces = excluded.bounces, duration_ms = excluded.duration_ms,
    session_pageviews = excluded.session_pageviews, time_sum = excluded.time_sum, time_count = excluded.time_count,
    scroll_sum = excluded.scroll_sum, scroll_count = excluded.scroll_count
),
x_page_contrib as (
  delete from rollup_session_page_contrib c
  using (select day, session_id, label, page from old_p except select day, session_id, label, page from new_p) o
  where c.project_id = $1 and c.day = o.day and c.session_id = o.session_id and c.label = o.label and c.page = o.page
),
u_page_visitors as (
  insert into rollup_day_page_visitors as r (project_id, day, page, visitor_hash, sel_mask)
  select $1, ev.day, ev.path, ev.h, bit_or(m.mask)::smallint
  from ev join cmask m on m.tm = ev.tm and m.em = ev.em
  where ev.name <> 'engagement' and ev.path is not null
  group by 2, 3, 4
  on conflict (project_id, day, page, visitor_hash) do update set sel_mask = r.sel_mask | excluded.sel_mask
  where r.sel_mask | excluded.sel_mask <> r.sel_mask
),
-- Dimension and prop rows: the claimed events only, each added once.
-- (`in (select unnest(…))`, a hashed lookup: `= any(array)` compares each event with every id, seconds
-- for a checkpoint of ten thousand events.)
nev as materialized (select * from ev where name <> 'engagement' and id in (select unnest($4::text[]))),
dk as materialized (
  select day, tm, em, country, region, city, browser, browser_version, os, os_version, device, screen, language, release,
    row(country, region, city, browser, browser_version, os, os_version, device, screen, language, release)::text as key,
    count(*) filter (where name = 'pageview') as pageviews, count(*) as events, array_agg(distinct h) as visitors
  from nev group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14
),
new_sets as (
  insert into rollup_dim_sets (project_id, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release)
  select distinct on (key) $1, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release from dk
  order by key
  on conflict (project_id, key) do nothing
  returning id, key
),
dsets as (
  select id, key from new_sets
  union all
  select s.id, s.key from rollup_dim_sets s where s.project_id = $1 and s.key in (select key from dk)
),
u_dims as (
  insert into rollup_day_dims as r (project_id, day, set_id, tm, em, pageviews, events, visitors)
  select $1, dk.day, s.id, dk.tm, dk.em, dk.pageviews, dk.events, dk.visitors from dk join dsets s on s.key = dk.key
  on conflict (project_id, day, set_id, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events, visitors = loupe_hash_union(r.visitors, excluded.visitors)
),
pk as (
  select day, name, tm, em, null::text as key, null::text as value, count(*) filter (where name = 'pageview') as pageviews, count(*) as events,
    array_agg(distinct h) as visitors
  from nev group by 1, 2, 3, 4
  union all
  select nev.day, nev.name, nev.tm, nev.em, p.key, p.value, count(*) filter (where nev.name = 'pageview'), count(*), array_agg(distinct nev.h)
  from nev, jsonb_each_text(nev.props) as p
  where nev.props <> '{}' and p.value is not null and not (nev.name = 'error' and p.key in ('stack', 'breadcrumbs'))
  group by 1, 2, 3, 4, 5, 6
),
u_props as (
  insert into rollup_day_props as r (project_id, day, name, tm, em, key, value, pageviews, events, visitors)
  select $1, day, name, tm, em, key, value, pageviews, events, visitors from pk
  on conflict (project_id, day, name, tm, em, key, value) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events, visitors = loupe_hash_union(r.visitors, excluded.visitors)
),
u_values as (
  insert into rollup_day_values as r (project_id, dim, day, value, tm, em, pageviews, events, visitors)
  select $1, d.dim, nev.day, d.value, nev.tm, nev.em, count(*) filter (where nev.name = 'pageview'), count(*), array_agg(distinct nev.h)
  from nev cross join lateral (values ('referrer', nev.referrer), ('referrer_domain', nev.referrer_domain), ('channel', nev.channel),
    ('utm_source', nev.utm_source), ('utm_medium', nev.utm_medium), ('utm_campaign', nev.utm_campaign), ('utm_term', nev.utm_term),
    ('utm_content', nev.utm_content)) as d(dim, value)
  group by d.dim, nev.day, d.value, nev.tm, nev.em
  on conflict (project_id, dim, day, value, tm, em) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events, visitors = loupe_hash_union(r.visitors, excluded.visitors)
)
select (select count(*) from new_s)::int as sessions

-- Builds the session facts per set of values of one project's UTC days [$2, $3) (0089; after
-- build_rollup_dim_days and build_rollup_acq_days, which intern the sets of the days' non-engagement
-- events). Each session-day with a non-engagement event, taken with all its events of the day (engagement
-- reports extend it), is counted in the cells of its class and visitor-level set, of its class and
-- acquisition set, and of its class and both, each when all its events share them; a session-day not
-- pure in both is kept as its parts (one per class and pair of sets; a set only engagement reports carry
-- is interned here), and one of a class and a visitor-level set with two acquisition sets is also summed
-- per pair of those sets. Sessions that cross midnight are counted per day, clipped, as in rollup_day_totals:
-- the read's split-session correction makes them whole. The sessions that lie within their day also add
-- their events to the entry and exit page rows per set and per pair of sets (0094), and their facts where
-- they are pure in the row's sets (0098), and each session-day's
-- events on one path, or of
-- one name, are counted as a session of that path or name (0090). The page breakdown's session and page
-- metrics per set and path are counted from the same session-days (0092), and per pair of sets (0099). The
-- days are recorded as counted.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns cells (rows inserted into the three cell tables), pairs (pair rows), parts (part rows), entry (entry
-- and exit page rows), value_cells, value_parts, page_facts (rows of the three page fact tables), page_pairs
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint as tm, loupe_environment_bits(e.environment)::smallint as em,
    e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release,
    e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content,
    row(e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen, e.language, e.release)::text as dim_key,
    row(e.referrer, e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content)::text as acq_key,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
),
-- each session-day's parts: its events of one class and one pair of sets
pt as materialized (
  select day, session_id, tm, em, dim_key, acq_key, min(visitor_id) as visitor_id, min(ts) as first_ts, max(ts) as last_ts,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where name <> 'engagement') as active
  from ev
  group by 1, 2, 3, 4, 5, 6
),
sd as materialized (
  select day, session_id, min(tm) as tm, min(em) as em, min(dim_key) as dim_key, min(acq_key) as acq_key,
    min(tm) = max(tm) and min(em) = max(em) and min(dim_key) = max(dim_key) as dim_pure,
    min(tm) = max(tm) and min(em) = max(em) and min(acq_key) = max(acq_key) as acq_pure,
    sum(pageviews) as pageviews, sum(custom) as custom, extract(epoch from max(last_ts) - min(first_ts)) * 1000 as duration_ms,
    count(*) as parts
  from pt
  group by 1, 2
  having sum(active) > 0
),
mixed as materialized (
  select pt.*, not sd.dim_pure as dim_mixed, not sd.acq_pure as acq_mixed, sd.dim_pure and sd.parts = 2 as acq_paired
  from pt join sd using (day, session_id)
  where not (sd.dim_pure and sd.acq_pure)
),
-- Rows this statement inserts are not visible to its own reads: the known sets and the new ones together.
new_dim as (
  insert into rollup_dim_sets (project_id, key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release)
  select distinct on (dim_key) $1, dim_key, country, region, city, browser, browser_version, os, os_version, device, screen, language, release
  from ev where dim_key in (select dim_key from mixed)
  order by dim_key
  on conflict (project_id, key) do nothing
  returning id, key
),
dim_sets as (
  select id, key from new_dim
  union all
  select s.id, s.key from rollup_dim_sets s where s.project_id = $1 and s.key in (select dim_key from pt)
),
new_acq as (
  insert into rollup_acq_sets (project_id, key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content)
  select distinct on (acq_key) $1, acq_key, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign, utm_term, utm_content
  from ev where acq_key in (select acq_key from mixed)
  order by acq_key
  on conflict (project_id, key) do nothing
  returning id, key
),
acq_sets as (
  select id, key from new_acq
  union all
  select s.id, s.key from rollup_acq_sets s where s.project_id = $1 and s.key in (select acq_key from pt)
),
dim_cells as (
  insert into rollup_day_dim_sessions (project_id, day, set_id, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, sd.day, d.id, sd.tm, sd.em, count(*), sum(sd.pageviews), count(*) filter (where sd.pageviews = 1 and sd.custom = 0),
    sum(sd.duration_ms)
  from sd join dim_sets d on d.key = sd.dim_key
  where sd.dim_pure
  group by 1, 2, 3, 4, 5
  returning 1
),
acq_cells as (
  insert into rollup_day_acq_sessions (project_id, day, set_id, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, sd.day, a.id, sd.tm, sd.em, count(*), sum(sd.pageviews), count(*) filter (where sd.pageviews = 1 and sd.custom = 0),
    sum(sd.duration_ms)
  from sd join acq_sets a on a.key = sd.acq_key
  where sd.acq_pure
  group by 1, 2, 3, 4, 5
  returning 1
),
cross_cells as (
  insert into rollup_day_cross_sessions (project_id, day, dim_set_id, acq_set_id, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, sd.day, d.id, a.id, sd.tm, sd.em, count(*), sum(sd.pageviews),
    count(*) filter (where sd.pageviews = 1 and sd.custom = 0), sum(sd.duration_ms)
  from sd join dim_sets d on d.key = sd.dim_key join acq_sets a on a.key = sd.acq_key
  where sd.dim_pure and sd.acq_pure
  group by 1, 2, 3, 4, 5, 6
  returning 1
),
-- the paired session-days with each part's facts, `a` the part of the smaller set id
paired as (
  select m.day, m.session_id, min(m.tm) as tm, min(m.em) as em,
    (array_agg(a.id order by a.id))[1] as a_set_id, (array_agg(a.id order by a.id))[2] as b_set_id,
    (array_agg(m.pageviews order by a.id))[1] as a_pageviews, (array_agg(m.pageviews order by a.id))[2] as b_pageviews,
    (array_agg(m.custom order by a.id))[1] as a_custom, (array_agg(m.custom order by a.id))[2] as b_custom,
    (array_agg(m.active order by a.id))[1] as a_active, (array_agg(m.active order by a.id))[2] as b_active,
    (array_agg(extract(epoch from m.last_ts - m.first_ts) * 1000 order by a.id))[1] as a_duration_ms,
    (array_agg(extract(epoch from m.last_ts - m.first_ts) * 1000 order by a.id))[2] as b_duration_ms
  from mixed m join acq_sets a on a.key = m.acq_key
  where m.acq_paired
  group by 1, 2
),
acq_pairs as (
  insert into rollup_day_acq_pairs (project_id, day, tm, em, a_set_id, b_set_id, n, pageviews, bounces, duration_ms,
    a_sessions, a_pageviews, a_bounces, a_duration_ms, b_sessions, b_pageviews, b_bounces, b_duration_ms)
  select $1, p.day, p.tm, p.em, p.a_set_id, p.b_set_id, count(*), sum(sd.pageviews),
    count(*) filter (where sd.pageviews = 1 and sd.custom = 0), sum(sd.duration_ms),
    count(*) filter (where p.a_active > 0), sum(p.a_pageviews),
    count(*) filter (where p.a_active > 0 and p.a_pageviews = 1 and p.a_custom = 0),
    coalesce(sum(p.a_duration_ms) filter (where p.a_active > 0), 0),
    count(*) filter (where p.b_active > 0), sum(p.b_pageviews),
    count(*) filter (where p.b_active > 0 and p.b_pageviews = 1 and p.b_custom = 0),
    coalesce(sum(p.b_duration_ms) filter (where p.b_active > 0), 0)
  from paired p join sd using (day, session_id)
  group by 1, 2, 3, 4, 5, 6
  returning 1
),
parts as (
  insert into rollup_day_session_parts (project_id, day, session_id, tm, em, dim_set_id, acq_set_id, dim_mixed, acq_mixed,
    acq_paired, first_ts, last_ts, pageviews, custom, active)
  select $1, m.day, m.session_id, m.tm, m.em, d.id, a.id, m.dim_mixed, m.acq_mixed, m.acq_paired, m.first_ts, m.last_ts,
    m.pageviews, m.custom, m.active
  from mixed m join dim_sets d on d.key = m.dim_key join acq_sets a on a.key = m.acq_key
  returning 1
),
-- the session-days that lie within their day by the sessions row's span (rollup_day_entry's test: the
-- others are the split sessions a read recomputes), with the row's entry and exit pages, less those the
-- day's build listed as split (rollup_day_split_sessions: a session whose row was not yet written then is
-- listed, and a read recomputes every listed session, so counted here too it would count twice); each part with a
-- non-engagement event adds its events to its sets' rows of those pages, and a session-day pure in class
-- and in a family's set adds its facts (0098) once, with its first such part, to that set's row (the
-- pairs' rows: pure in both, one part)
-- with the session-day's facts: joined to sd again beside pt, the three were planned on sd's and within's
-- estimates (a few rows each, against 30,000 at 10M events) as a nested loop, 950M row pairs and 100 s a day
within as materialized (
  select sd.day, sd.session_id, x.entry_page, x.exit_page, sd.dim_pure, sd.acq_pure, sd.pageviews, sd.custom,
    sd.duration_ms
  from sd
  join sessions x on x.project_id = $1 and x.id = sd.session_id
    and x.started_at >= (sd.day::timestamp at time zone 'UTC') and x.last_activity < ((sd.day + 1)::timestamp at time zone 'UTC')
  -- NOT IN, one hashed set of the days' listed sessions (docs/sql.md, "Marks left out")
  where (sd.day, sd.session_id) not in (
    select sp.day, sp.session_id from rollup_day_split_sessions sp
    where sp.project_id = $1 and sp.day >= $2::date and sp.day < $3::date)
),
entry_pt as materialized (
  select pt.day, pt.tm, pt.em, pt.dim_key, pt.acq_key, k.kind, k.page, pt.pageviews, pt.active,
    hashtextextended(pt.visitor_id, 0) as h,
    w.dim_pure and row_number() over (partition by pt.day, pt.session_id, k.kind order by pt.acq_key) = 1 as dim_lead,
    w.acq_pure and row_number() over (partition by pt.day, pt.session_id, k.kind order by pt.dim_key) = 1 as acq_lead,
    w.dim_pure and w.acq_pure as cross_lead,
    w.pageviews as s_pageviews, w.pageviews = 1 and w.custom = 0 as s_bounce, w.duration_ms as s_duration_ms
  from pt join within w using (day, session_id)
  cross join lateral (values (0::smallint, w.entry_page), (1::smallint, w.exit_page)) as k(kind, page)
  where pt.active > 0 and k.page is not null
),
dim_entry as (
  insert into rollup_day_dim_entry (project_id, day, set_id, tm, em, kind, page, pageviews, events, visitors,
    sessions, session_pageviews, bounces, duration_ms)
  select $1, x.day, d.id, x.tm, x.em, x.kind, x.page, sum(x.pageviews), sum(x.active), array_agg(distinct x.h),
    count(*) filter (where x.dim_lead), coalesce(sum(x.s_pageviews) filter (where x.dim_lead), 0),
    count(*) filter (where x.dim_lead and x.s_bounce), coalesce(sum(x.s_duration_ms) filter (where x.dim_lead), 0)
  from entry_pt x join dim_sets d on d.key = x.dim_key
  group by x.day, d.id, x.tm, x.em, x.kind, x.page
  returning 1
),
acq_entry as (
  insert into rollup_day_acq_entry (project_id, day, set_id, tm, em, kind, page, pageviews, events, visitors,
    sessions, session_pageviews, bounces, duration_ms)
  select $1, x.day, a.id, x.tm, x.em, x.kind, x.page, sum(x.pageviews), sum(x.active), array_agg(distinct x.h),
    count(*) filter (where x.acq_lead), coalesce(sum(x.s_pageviews) filter (where x.acq_lead), 0),
    count(*) filter (where x.acq_lead and x.s_bounce), coalesce(sum(x.s_duration_ms) filter (where x.acq_lead), 0)
  from entry_pt x join acq_sets a on a.key = x.acq_key
  group by x.day, a.id, x.tm, x.em, x.kind, x.page
  returning 1
),
cross_entry as (
  insert into rollup_day_cross_entry (project_id, day, dim_set_id, acq_set_id, tm, em, kind, page, pageviews, events,
    visitors, sessions, session_pageviews, bounces, duration_ms)
  select $1, x.day, d.id, a.id, x.tm, x.em, x.kind, x.page, sum(x.pageviews), sum(x.active), array_agg(distinct x.h),
    count(*) filter (where x.cross_lead), coalesce(sum(x.s_pageviews) filter (where x.cross_lead), 0),
    count(*) filter (where x.cross_lead and x.s_bounce), coalesce(sum(x.s_duration_ms) filter (where x.cross_lead), 0)
  from entry_pt x join dim_sets d on d.key = x.dim_key join acq_sets a on a.key = x.acq_key
  group by x.day, d.id, a.id, x.tm, x.em, x.kind, x.page
  returning 1
),
-- each session-day's events of one page path (kind 0) or one event name (kind 1), per class and sets:
-- under `page=X` a session is its events on X, under `event=X` its events named X (0090), and beside filters
-- on one family of dimensions, under `page=X` its events on X that match them (0097)
value_pt as materialized (
  select ev.day, ev.session_id, k.kind, k.value, ev.tm, ev.em, ev.dim_key, ev.acq_key, min(ev.ts) as first_ts,
    max(ev.ts) as last_ts, count(*) filter (where ev.name = 'pageview') as pageviews,
    count(*) filter (where ev.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where ev.name <> 'engagement') as active
  from ev cross join lateral (values (0::smallint, ev.path), (1::smallint, ev.name)) as k(kind, value)
  where k.value is not null and (k.kind = 0 or ev.name <> 'engagement')
  group by 1, 2, 3, 4, 5, 6, 7, 8
),
value_sd as materialized (
  select day, session_id, kind, value, min(tm) as tm, min(em) as em, min(dim_key) as dim_key, min(acq_key) as acq_key,
    min(tm) = max(tm) and min(em) = max(em) as pure, min(dim_key) = max(dim_key) as dim_pure,
    min(acq_key) = max(acq_key) as acq_pure, sum(pageviews) as pageviews, sum(custom) as custom,
    extract(epoch from max(last_ts) - min(first_ts)) * 1000 as duration_ms
  from value_pt
  group by 1, 2, 3, 4
  having sum(active) > 0
),
value_cells as (
  insert into rollup_day_value_sessions (project_id, day, kind, value, tm, em, sessions, pageviews, bounces, duration_ms)
  select $1, day, kind, value, tm, em, count(*), sum(pageviews), count(*) filter (where pageviews = 1 and custom = 0),
    sum(duration_ms)
  from value_sd where pure
  group by 1, 2, 3, 4, 5, 6
  returning 1
),
-- the parts (per class and pair of sets) of the sessions of a value mixed in class, and of a path mixed in
-- a family's sets, each saying which: under the value alone a read combines those mixed in class, beside a
-- family's filters those mixed in class or in that family, of the sets the filters select
value_parts as (
  insert into rollup_day_value_parts (project_id, day, kind, value, session_id, dim_set_id, acq_set_id, tm, em,
    class_mixed, dim_mixed, acq_mixed, first_ts, last_ts, pageviews, custom, active)
  select $1, p.day, p.kind, p.value, p.session_id, d.id, a.id, p.tm, p.em, not s.pure, not s.dim_pure, not s.acq_pure,
    p.first_ts, p.last_ts, p.pageviews, p.custom, p.active
  from value_pt p join value_sd s using (day, session_id, kind, value)
  join dim_sets d on d.key = p.dim_key join acq_sets a on a.key = p.acq_key
  where not s.pure or (p.kind = 0 and not (s.dim_pure and s.acq_pure))
  returning 1
),
-- The page breakdown's facts per set (0092). Each session-day's paths touched by a non-engagement event,
-- with the acquisition set of the events that touched them.
touch as materialized (
  select distinct day, session_id, acq_key, path from ev where name <> 'engagement' and path is not null
),
-- Page facts as build_rollup_page_days.sql sequences them, of the session-days of one class whose
-- pageviews a read takes from these rows: pure in the visitor-level set (`dim`), pure in the acquisition
-- set or paired (`acq`), pure in both (`cross`). A read takes the others from their events (set-pages.ts).
pseq as materialized (
  select ev.day, ev.session_id, ev.id, ev.ts, ev.name, ev.path, ev.tm, ev.em, ev.dim_key, ev.acq_key, ev.time_ms, ev.scroll,
    sd.dim_pure, sd.acq_pure or (sd.dim_pure and sd.parts = 2) as acq_kept, sd.dim_pure and sd.acq_pure as cross_kept,
    count(*) filter (where ev.name = 'pageview') over (partition by ev.day, ev.session_id order by ev.ts, ev.id
      rows between unbounded preceding and current row) as pv_idx
  from ev join sd using (day, session_id)
  where ev.name in ('pageview', 'engagement') and (sd.dim_pure or sd.acq_pure)
),
pfacts as materialized (
  select day, path, tm, em, dim_key, acq_key, dim_pure, acq_kept, cross_kept, scroll_depth,
    case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end as time_ms
  from (
    select pseq.*, max(time_ms) over pg as reported_ms, max(scroll) over pg as scroll_depth,
      min(ts) filter (where name = 'pageview') over (partition by day, session_id order by pv_idx
        range between 1 following and 1 following) as next_ts
    from pseq
    window pg as (partition by day, session_id, pv_idx)
  ) f
  where name = 'pageview' and path is not null
),
-- Per family (0 visitor-level, 1 acquisition), set, class and path: the events and pageviews, the session-days
-- pure in class and the family's set that touched the path, and the page facts the family keeps. Every
-- (set, class, path) a session or a page fact counts has an event, so the events' rows hold every key.
page_cells as materialized (
  select c.fam, c.day, c.key, c.tm, c.em, c.path, c.pageviews, c.events, coalesce(v.sessions, 0) as path_sessions,
    coalesce(v.pageviews, 0) as path_pageviews, coalesce(v.bounces, 0) as path_bounces,
    coalesce(v.duration_ms, 0) as path_duration_ms, coalesce(s.sessions, 0) as sessions,
    coalesce(s.bounces, 0) as bounces, coalesce(s.session_pageviews, 0) as session_pageviews,
    coalesce(s.duration_ms, 0) as duration_ms, coalesce(f.time_sum, 0) as time_sum, coalesce(f.time_count, 0) as time_count,
    coalesce(f.scroll_sum, 0) as scroll_sum, coalesce(f.scroll_count, 0) as scroll_count
  from (
    select k.fam, ev.day, k.key, ev.tm, ev.em, ev.path, count(*) filter (where ev.name = 'pageview') as pageviews,
      count(*) as events
    from ev cross join lateral (values (0, ev.dim_key), (1, ev.acq_key)) as k(fam, key)
    where ev.name <> 'engagement' and ev.path is not null
    group by 1, 2, 3, 4, 5, 6
  ) c
  left join (
    select k.fam, t.day, k.key, sd.tm, sd.em, t.path, count(*) as sessions,
      count(*) filter (where sd.pageviews = 1 and sd.custom = 0) as bounces, sum(sd.pageviews) as session_pageviews,
      sum(sd.duration_ms) as duration_ms
    from (select distinct day, session_id, path from touch) t join sd using (day, session_id)
    cross join lateral (values (0, sd.dim_key, sd.dim_pure), (1, sd.acq_key, sd.acq_pure)) as k(fam, key, pure)
    where k.pure
    group by 1, 2, 3, 4, 5, 6
  ) s using (fam, day, key, tm, em, path)
  left join (
    select k.fam, f.day, k.key, f.tm, f.em, f.path, sum(f.time_ms) as time_sum, count(f.time_ms) as time_count,
      sum(f.scroll_depth) as scroll_sum, count(f.scroll_depth) as scroll_count
    from pfacts f cross join lateral (values (0, f.dim_key, f.dim_pure), (1, f.acq_key, f.acq_kept)) as k(fam, key, kept)
    where k.kept
    group by 1, 2, 3, 4, 5, 6
  ) f using (fam, day, key, tm, em, path)
  -- the sessions of the path (its events on it) pure in class and in the family's set (0097); each has a
  -- non-engagement event there, so the events' rows hold its key
  left join (
    select k.fam, v.day, k.key, v.tm, v.em, v.value as path, count(*) as sessions, sum(v.pageviews) as pageviews,
      count(*) filter (where v.pageviews = 1 and v.custom = 0) as bounces, sum(v.duration_ms) as duration_ms
    from value_sd v cross join lateral (values (0, v.dim_key, v.dim_pure), (1, v.acq_key, v.acq_pure)) as k(fam, key, pure)
    where v.kind = 0 and v.pure and k.pure
    group by 1, 2, 3, 4, 5, 6
  ) v using (fam, day, key, tm, em, path)
),
dim_page_facts as (
  insert into rollup_day_dim_page_facts (project_id, day, set_id, tm, em, path, pageviews, events, sessions, bounces,
    session_pageviews, duration_ms, time_sum, time_count, scroll_sum, scroll_count, path_sessions, path_pageviews,
    path_bounces, path_duration_ms)
  select $1, c.day, d.id, c.tm, c.em, c.path, c.pageviews, c.events, c.sessions, c.bounces, c.session_pageviews,
    c.duration_ms, c.time_sum, c.time_count, c.scroll_sum, c.scroll_count, c.path_sessions, c.path_pageviews,
    c.path_bounces, c.path_duration_ms
  from page_cells c join dim_sets d on d.key = c.key where c.fam = 0
  returning 1
),
acq_page_facts as (
  insert into rollup_day_acq_page_facts (project_id, day, set_id, tm, em, path, pageviews, events, sessions, bounces,
    session_pageviews, duration_ms, time_sum, time_count, scroll_sum, scroll_count, path_sessions, path_pageviews,
    path_bounces, path_duration_ms)
  select $1, c.day, a.id, c.tm, c.em, c.path, c.pageviews, c.events, c.sessions, c.bounces, c.session_pageviews,
    c.duration_ms, c.time_sum, c.time_count, c.scroll_sum, c.scroll_count, c.path_sessions, c.path_pageviews,
    c.path_bounces, c.path_duration_ms
  from page_cells c join acq_sets a on a.key = c.key where c.fam = 1
  returning 1
),
-- Per pair of sets, class and path (0099): the session-days pure in class and both sets that touched the
-- path, their page facts, and the sessions of the path (its events on it) pure in class and both sets.
-- Their events are the crossed page rows' (0094), which hold every key.
cross_page_facts as (
  insert into rollup_day_cross_page_facts (project_id, day, dim_set_id, acq_set_id, tm, em, path, sessions, bounces,
    session_pageviews, duration_ms, time_sum, time_count, scroll_sum, scroll_count, path_sessions, path_pageviews,
    path_bounces, path_duration_ms)
  select $1, x.day, d.id, a.id, x.tm, x.em, x.path, sum(x.sessions), sum(x.bounces), sum(x.session_pageviews),
    sum(x.duration_ms), sum(x.time_sum), sum(x.time_count), sum(x.scroll_sum), sum(x.scroll_count),
    sum(x.path_sessions), sum(x.path_pageviews), sum(x.path_bounces), sum(x.path_duration_ms)
  from (
    select t.day, sd.dim_key, sd.acq_key, sd.tm, sd.em, t.path, count(*) as sessions,
      count(*) filter (where sd.pageviews = 1 and sd.custom = 0) as bounces, sum(sd.pageviews) as session_pageviews,
      sum(sd.duration_ms) as duration_ms, 0::float8 as time_sum, 0::bigint as time_count, 0::float8 as scroll_sum,
      0::bigint as scroll_count, 0::bigint as path_sessions, 0::numeric as path_pageviews, 0::bigint as path_bounces,
      0::numeric as path_duration_ms
    from (select distinct day, session_id, path from touch) t join sd using (day, session_id)
    where sd.dim_pure and sd.acq_pure
    group by 1, 2, 3, 4, 5, 6
    union all
    select f.day, f.dim_key, f.acq_key, f.tm, f.em, f.path, 0, 0, 0, 0, coalesce(sum(f.time_ms), 0), count(f.time_ms),
      coalesce(sum(f.scroll_depth), 0), count(f.scroll_depth), 0, 0, 0, 0
    from pfacts f where f.cross_kept
    group by 1, 2, 3, 4, 5, 6
    union all
    select v.day, v.dim_key, v.acq_key, v.tm, v.em, v.value, 0, 0, 0, 0, 0, 0, 0, 0, count(*), sum(v.pageviews),
      count(*) filter (where v.pageviews = 1 and v.custom = 0), sum(v.duration_ms)
    from value_sd v where v.kind = 0 and v.pure and v.dim_pure and v.acq_pure
    group by 1, 2, 3, 4, 5, 6
  ) x
  join dim_sets d on d.key = x.dim_key join acq_sets a on a.key = x.acq_key
  group by 1, 2, 3, 4, 5, 6, 7
  returning 1
),
-- the paired session-days per path they touched, with whether each part touched it
acq_page_pairs as (
  insert into rollup_day_acq_page_pairs (project_id, day, tm, em, a_set_id, b_set_id, path, n, pageviews, bounces,
    duration_ms, a_sessions, a_pageviews, a_bounces, a_duration_ms, b_sessions, b_pageviews, b_bounces, b_duration_ms)
  select $1, p.day, p.tm, p.em, p.a_set_id, p.b_set_id, t.path, count(*), sum(sd.pageviews),
    count(*) filter (where sd.pageviews = 1 and sd.custom = 0), sum(sd.duration_ms),
    count(*) filter (where p.a_set_id = any(t.ids)), coalesce(sum(p.a_pageviews) filter (where p.a_set_id = any(t.ids)), 0),
    count(*) filter (where p.a_set_id = any(t.ids) and p.a_pageviews = 1 and p.a_custom = 0),
    coalesce(sum(p.a_duration_ms) filter (where p.a_set_id = any(t.ids)), 0),
    count(*) filter (where p.b_set_id = any(t.ids)), coalesce(sum(p.b_pageviews) filter (where p.b_set_id = any(t.ids)), 0),
    count(*) filter (where p.b_set_id = any(t.ids) and p.b_pageviews = 1 and p.b_custom = 0),
    coalesce(sum(p.b_duration_ms) filter (where p.b_set_id = any(t.ids)), 0)
  from paired p join sd using (day, session_id)
  join (
    select t.day, t.session_id, t.path, array_agg(a.id) as ids from touch t join acq_sets a on a.key = t.acq_key
    group by 1, 2, 3
  ) t using (day, session_id)
  group by 1, 2, 3, 4, 5, 6, 7
  returning 1
),
counted as (
  insert into rollup_set_session_days (project_id, day)
  select $1, d::date from generate_series($2::date, $3::date - 1, interval '1 day') d
  on conflict do nothing
)
select (select count(*) from dim_cells)::int + (select count(*) from acq_cells)::int + (select count(*) from cross_cells)::int as cells,
  (select count(*) from acq_pairs)::int as pairs, (select count(*) from parts)::int as parts,
  (select count(*) from dim_entry)::int + (select count(*) from acq_entry)::int
    + (select count(*) from cross_entry)::int as entry,
  (select count(*) from value_cells)::int as value_cells, (select count(*) from value_parts)::int as value_parts,
  (select count(*) from dim_page_facts)::int + (select count(*) from acq_page_facts)::int
    + (select count(*) from cross_page_facts)::int as page_facts,
  (select count(*) from acq_page_pairs)::int as page_pairs

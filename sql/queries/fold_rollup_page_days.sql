-- Folds the marked events of one built day into its page rows (as fold_rollup_days.sql, whose comment says
-- how): per selection and page, the counts, the sums of the sessions that touched the page and the page
-- facts of build_rollup_page_days.sql, each session a mark names counted now (w = 1) and as the rows hold
-- it (w = -1, its events without the marked ones), and the difference added; the late events' visitors
-- add the selections each (page, visitor) row lacks.
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns pages, visitors (rows written)
with touched as (
  select distinct session_id from rollup_stale_days
  where project_id = $1 and day = $2::date and session_id is not null
),
-- the marked events with what the day's rows hold of their sessions, and the merged sessions: those taken
-- from what the rows hold of them plus their marked events (create_rollup_fold_marks.sql)
mev as materialized (select * from rollup_fold_marks),
merged as materialized (select distinct on (session_id) * from mev where merged),
-- the other touched sessions are read whole, their marked events flagged
ev as materialized (
  select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path, (e.id, e.ts) in (select id, ts from mev) as late,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e
  where e.project_id = $1 and e.session_id in (select session_id from touched except select session_id from merged)
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
),
sels as (select (t * 3 + v)::smallint as sel, t, v from generate_series(0, 3) t, generate_series(0, 2) v),
-- each event under each selection that takes it, once now (w = 1) and, unless marked, once as held (w = -1)
es as materialized (
  select ev.*, s.sel, x.w from ev join sels s on (ev.tm >> s.t) & 1 = 1 and (ev.em >> s.v) & 1 = 1
  cross join (values (1), (-1)) x(w)
  where x.w = 1 or not ev.late
),
-- each event with its session's span and counts under its selection (a window, not a join)
ess as (
  select w, sel, session_id, path, name,
    min(ts) over s as first_ts, max(ts) over s as last_ts,
    count(*) filter (where name = 'pageview') over s as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) over s as custom
  from es
  window s as (partition by w, sel, session_id)
),
-- the merged sessions as held (w = -1) and now (w = 1): span, counts and the pages they touched
mspan as (
  select -1 as w, session_id, (k).tm, (k).em, (k).first_ts, (k).last_ts, (k).pageviews, (k).custom, (k).paths
  from merged
  union all
  select 1, session_id, (k).tm, (k).em, least((k).first_ts, m_first_ts), greatest((k).last_ts, m_last_ts),
    (k).pageviews + m_pageviews, (k).custom + m_custom, (k).paths || m_paths
  from merged
),
touched_pages as (
  select distinct w, sel, session_id, path, first_ts, last_ts, pageviews, custom
  from ess where name <> 'engagement' and path is not null
  union
  select k.w, s.sel, k.session_id, p.path, k.first_ts, k.last_ts, k.pageviews, k.custom
  from mspan k cross join unnest(k.paths) p(path) join sels s on (k.tm >> s.t) & 1 = 1 and (k.em >> s.v) & 1 = 1
),
psess as (
  select sel, path, sum(w) as sessions, coalesce(sum(w) filter (where pageviews = 1 and custom = 0), 0) as bounces,
    sum(w * extract(epoch from last_ts - first_ts) * 1000) as duration_ms, sum(w * pageviews) as session_pageviews
  from touched_pages
  group by 1, 2
),
-- the marked events on pages, counted by class and page, then spread over the selections each class
-- falls in (cm: a class's bits of sel_mask)
mpages as (select * from mev where name <> 'engagement' and path is not null),
cm as (
  select c.tm, c.em, bit_or(1 << s.sel)::int as mask
  from (select distinct tm, em from mpages) c join sels s on (c.tm >> s.t) & 1 = 1 and (c.em >> s.v) & 1 = 1
  group by 1, 2
),
pcount as (
  select s.sel, c.path, sum(c.pageviews) as pageviews, sum(c.events) as events
  from (
    select tm, em, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events
    from mpages group by 1, 2, 3
  ) c join sels s on (c.tm >> s.t) & 1 = 1 and (c.em >> s.v) & 1 = 1
  group by 1, 2
),
-- the page facts' events: the other sessions' under each selection (es); for a merged session its last
-- held pageview, carrying the reports after it, as held (w = -1) and followed by the marked events (w = 1).
-- Nothing comes between the earlier pages and their next pageview, so their facts stay as the rows hold
-- them. A merged session's events share one class, so its facts are the same under every selection that
-- takes it: it is sequenced once, under sel -1 with its class, and spread over those selections after the
-- sums (pfacts), instead of once a selection (four for a human production session).
fin as (
  select w, sel, null::int as tm, null::int as em, session_id, id, ts, name, path, time_ms, scroll
  from es where name in ('pageview', 'engagement')
  union all
  select x.w, -1, (m.k).tm, (m.k).em, m.session_id, (m.k).lp_id, (m.k).lp_ts, 'pageview', (m.k).lp_path,
    (m.k).lp_time, (m.k).lp_scroll
  from merged m cross join (values (1), (-1)) x(w)
  where (m.k).lp_ts is not null
  union all
  select 1, -1, m.tm, m.em, m.session_id, m.id, m.ts, m.name, m.path, m.time_ms, m.scroll
  from mev m
  where m.merged and m.name in ('pageview', 'engagement')
),
seq as (
  select fin.*, count(*) filter (where name = 'pageview') over (
    partition by w, sel, session_id order by ts, id rows between unbounded preceding and current row) as pv_idx
  from fin
),
facts as (
  select w, sel, tm, em, path, name, ts,
    max(time_ms) over page as reported_ms, max(scroll) over page as scroll_depth,
    min(ts) filter (where name = 'pageview') over (partition by w, sel, session_id order by pv_idx
      range between 1 following and 1 following) as next_ts
  from seq
  window page as (partition by w, sel, session_id, pv_idx)
),
fsum as (
  select sel, tm, em, path,
    sum(w * case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end) as time_sum,
    sum(w * (case when next_ts is not null or reported_ms is not null then 1 else 0 end)) as time_count,
    sum(w * scroll_depth) as scroll_sum, sum(w * (case when scroll_depth is not null then 1 else 0 end)) as scroll_count
  from facts where name = 'pageview' and path is not null group by 1, 2, 3, 4
),
-- the merged sessions' sums (sel -1) under each selection their class falls in
pfacts as (
  select coalesce(s.sel, f.sel) as sel, f.path, sum(f.time_sum) as time_sum, sum(f.time_count) as time_count,
    sum(f.scroll_sum) as scroll_sum, sum(f.scroll_count) as scroll_count
  from fsum f left join sels s on f.sel = -1 and (f.tm >> s.t) & 1 = 1 and (f.em >> s.v) & 1 = 1
  where f.sel >= 0 or s.sel is not null
  group by 1, 2
),
delta as (
  select sel, path, coalesce(c.pageviews, 0) as pageviews, coalesce(c.events, 0) as events,
    coalesce(p.sessions, 0) as sessions, coalesce(p.bounces, 0) as bounces, coalesce(p.duration_ms, 0) as duration_ms,
    coalesce(p.session_pageviews, 0) as session_pageviews, coalesce(f.time_sum, 0) as time_sum,
    coalesce(f.time_count, 0) as time_count, coalesce(f.scroll_sum, 0) as scroll_sum, coalesce(f.scroll_count, 0) as scroll_count
  from pcount c full join psess p using (sel, path) full join pfacts f using (sel, path)
),
i_pages as (
  insert into rollup_day_pages as r (project_id, day, sel, page, pageviews, events, sessions, bounces, duration_ms,
    session_pageviews, time_sum, time_count, scroll_sum, scroll_count)
  select $1, $2::date, sel, path, pageviews, events, sessions, bounces, duration_ms, session_pageviews, time_sum,
    time_count, scroll_sum, scroll_count
  from delta
  where pageviews <> 0 or events <> 0 or sessions <> 0 or bounces <> 0 or duration_ms <> 0 or session_pageviews <> 0
    or time_sum <> 0 or time_count <> 0 or scroll_sum <> 0 or scroll_count <> 0
  on conflict (project_id, day, sel, page) do update set pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events, sessions = r.sessions + excluded.sessions, bounces = r.bounces + excluded.bounces,
    duration_ms = r.duration_ms + excluded.duration_ms, session_pageviews = r.session_pageviews + excluded.session_pageviews,
    time_sum = r.time_sum + excluded.time_sum, time_count = r.time_count + excluded.time_count,
    scroll_sum = r.scroll_sum + excluded.scroll_sum, scroll_count = r.scroll_count + excluded.scroll_count
  returning 1
),
i_visitors as (
  insert into rollup_day_page_visitors as r (project_id, day, page, visitor_hash, sel_mask)
  select $1, $2::date, v.path, v.h, bit_or(cm.mask)::smallint
  from (select distinct path, hashtextextended(visitor_id, 0) as h, tm, em from mpages) v join cm using (tm, em)
  group by 3, 4
  on conflict (project_id, day, page, visitor_hash) do update set sel_mask = r.sel_mask | excluded.sel_mask
  returning 1
)
select (select count(*) from i_pages)::int as pages, (select count(*) from i_visitors)::int as visitors

-- Folds the marked events of one built day into its day rows (src/query/rollup/fold.ts; the first of the
-- FOLD_STATEMENTS, all in one repeatable-read transaction, so each sees the same marks and events): the
-- totals, the visitors, the split sessions and the irregular flag as build_rollup_days.sql would count
-- them now, and the entry and exit page rows as build_rollup_entry_days.sql would. Every session a mark
-- names is counted twice, from all its events of the day (w = 1) and from those the rows already hold,
-- its events without the marked ones (w = -1), and the difference is added: sums subtract exactly.
-- Visitors are sets: a late event's visitor adds the selections the day's row lacks. An entry or exit row
-- takes each touched session out as the rows hold it (its pages and selections as
-- rollup_day_entry_sessions lists them) and puts it back as it is now (its sessions row's pages, unless
-- its span now leaves the day), and the session's listing is replaced. A row's set of visitors takes the
-- touched sessions' visitors it now counts, and loses one only when none of that visitor's sessions is
-- counted there any more: no touched session now, and no other listed session of the visitor (found
-- through the visitor's sessions rows, so the day's whole listing is not read). A row left without
-- sessions is deleted by delete_rollup_empty_entry_rows.sql for the pages this returns. The day gets a
-- new build_seq, so values kept over its ranges count again.
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns totals, visitors, split, days, entry, listed (rows written), pages (of the entry rows touched)
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
  select e.session_id, e.visitor_id, e.name, e.ts, (e.id, e.ts) in (select id, ts from mev) as late,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e
  where e.project_id = $1 and e.session_id in (select session_id from touched except select session_id from merged)
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
),
sels as (select (t * 3 + v)::smallint as sel, t, v from generate_series(0, 3) t, generate_series(0, 2) v),
sc as (
  select x.w, ev.session_id, ev.tm, ev.em, min(ev.visitor_id) as v_min, max(ev.visitor_id) as v_max,
    min(ev.ts) as first_ts, max(ev.ts) as last_ts,
    count(*) filter (where ev.name = 'pageview') as pageviews,
    count(*) filter (where ev.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where ev.name <> 'engagement') as active
  from ev cross join (values (1), (-1)) x(w)
  where x.w = 1 or not ev.late
  group by 1, 2, 3, 4
  union all
  select -1, session_id, (k).tm, (k).em, (k).visitor_min, (k).visitor_max, (k).first_ts, (k).last_ts, (k).pageviews,
    (k).custom, (k).active
  from merged
  union all
  select 1, session_id, (k).tm, (k).em, least((k).visitor_min, m_visitor_min), greatest((k).visitor_max, m_visitor_max),
    least((k).first_ts, m_first_ts), greatest((k).last_ts, m_last_ts), (k).pageviews + m_pageviews,
    (k).custom + m_custom, (k).active + m_active
  from merged
),
ss as (
  select sc.w, s.sel, sc.session_id, min(sc.v_min) as visitor_id, min(sc.first_ts) as first_ts, max(sc.last_ts) as last_ts,
    sum(sc.pageviews) as pageviews, sum(sc.custom) as custom, sum(sc.active) as active
  from sc join sels s on (sc.tm >> s.t) & 1 = 1 and (sc.em >> s.v) & 1 = 1
  group by 1, 2, 3
),
st as (
  select sel, coalesce(sum(w) filter (where active > 0), 0) as sessions, sum(w * pageviews) as pageviews,
    sum(w * active) as events, coalesce(sum(w) filter (where active > 0 and pageviews = 1 and custom = 0), 0) as bounces,
    coalesce(sum(w * extract(epoch from last_ts - first_ts) * 1000) filter (where active > 0), 0) as duration_ms
  from ss group by 1
),
-- the late events' visitors and the selections their events fall in, against the day's row of each
vn as (
  select hashtextextended(x.visitor_id, 0) as h, bit_or(1 << s.sel)::smallint as mask
  from (select distinct visitor_id, tm, em from mev where name <> 'engagement') x
  join sels s on (x.tm >> s.t) & 1 = 1 and (x.em >> s.v) & 1 = 1
  group by 1
),
-- the selections each visitor adds, its day row probed once (a visitor counts in up to twelve selections)
vbits as materialized (
  select vn.mask::int & ~coalesce((
    select r.sel_mask from rollup_day_visitors r
    where r.project_id = $1 and r.day = $2::date and r.visitor_hash = vn.h), 0)::int as bits
  from vn
),
vc as (
  select s.sel, count(*) as visitors
  from vbits join sels s on (vbits.bits & (1 << s.sel)) <> 0
  where vbits.bits <> 0
  group by 1
),
i_totals as (
  insert into rollup_day_totals as r (project_id, day, sel, visitors, sessions, pageviews, events, bounces, duration_ms)
  select $1, $2::date, coalesce(st.sel, vc.sel), coalesce(vc.visitors, 0), coalesce(st.sessions, 0),
    coalesce(st.pageviews, 0), coalesce(st.events, 0), coalesce(st.bounces, 0), coalesce(st.duration_ms, 0)
  from st full join vc on vc.sel = st.sel
  where coalesce(vc.visitors, 0) <> 0 or st.sessions <> 0 or st.pageviews <> 0 or st.events <> 0 or st.bounces <> 0
    or st.duration_ms <> 0
  on conflict (project_id, day, sel) do update set visitors = r.visitors + excluded.visitors,
    sessions = r.sessions + excluded.sessions, pageviews = r.pageviews + excluded.pageviews,
    events = r.events + excluded.events, bounces = r.bounces + excluded.bounces,
    duration_ms = r.duration_ms + excluded.duration_ms
  returning 1
),
i_visitors as (
  insert into rollup_day_visitors as r (project_id, day, visitor_hash, sel_mask)
  select $1, $2::date, h, mask from vn
  on conflict (project_id, day, visitor_hash) do update set sel_mask = r.sel_mask | excluded.sel_mask
  returning 1
),
-- as build_rollup_days.sql's split: a session's span only grows, so a split session stays split
i_split as (
  insert into rollup_day_split_sessions (project_id, day, session_id)
  select $1, $2::date, d.session_id from (select distinct session_id from sc where w = 1) d
  left join sessions s on s.project_id = $1 and s.id = d.session_id
  where s.id is null or s.started_at < ($2::date::timestamp at time zone 'UTC')
    or s.last_activity >= ($3::date::timestamp at time zone 'UTC')
  on conflict do nothing
  returning 1
),
u_day as (
  update rollup_days set build_seq = nextval('rollup_build_seq'),
    irregular = irregular or coalesce((
      select bool_or(v_min <> v_max)
      from (select session_id, min(v_min) as v_min, max(v_max) as v_max from sc where w = 1 group by 1) x), false)
  where project_id = $1 and day = $2::date
  returning 1
),
-- each session now (counted if its sessions row lies within the day, under the row's pages) and as the
-- rows hold it (its listing), each looked up by key
counted as (
  select ss.*, x.entry_page, x.exit_page, hashtextextended(ss.visitor_id, 0) as h from ss
  join sessions x on x.project_id = $1 and x.id = ss.session_id
    and x.started_at >= ($2::date::timestamp at time zone 'UTC') and x.last_activity < ($3::date::timestamp at time zone 'UTC')
  where ss.w = 1 and ss.active > 0
  union all
  select ss.*, k.entry_page, k.exit_page, k.visitor_hash from ss
  join rollup_day_entry_sessions k on k.project_id = $1 and k.day = $2::date and k.session_id = ss.session_id
  where ss.w = -1 and ss.active > 0 and (k.sel_mask::int >> ss.sel) & 1 = 1
),
keyed as (
  select c.*, k.kind, k.page from counted c
  cross join lateral (values (0::smallint, c.entry_page), (1::smallint, c.exit_page)) as k(kind, page)
  where k.page is not null
),
entry_delta as (
  select sel, kind, page, sum(w) as sessions, sum(w * pageviews) as pageviews, sum(w * active) as events,
    coalesce(sum(w) filter (where pageviews = 1 and custom = 0), 0) as bounces,
    sum(w * extract(epoch from last_ts - first_ts) * 1000) as duration_ms,
    coalesce(array_agg(distinct h) filter (where w = 1), '{}') as added
  from keyed group by 1, 2, 3
),
-- a visitor a row held through a touched session, which no session of the visitor now puts there
gone as (
  select distinct c.sel, c.kind, c.page, c.h from keyed c
  where c.w = -1
    and not exists (
      select 1 from keyed a where a.w = 1 and a.sel = c.sel and a.kind = c.kind and a.page = c.page and a.h = c.h)
    and not exists (
      select 1 from sessions x
      join rollup_day_entry_sessions k on k.project_id = $1 and k.day = $2::date and k.session_id = x.id
      where x.project_id = $1 and x.visitor_id = c.visitor_id and x.id not in (select session_id from touched)
        and k.visitor_hash = c.h and (k.sel_mask::int >> c.sel) & 1 = 1
        and (case c.kind when 0 then k.entry_page else k.exit_page end) = c.page)
),
i_entry as (
  insert into rollup_day_entry as r (project_id, day, sel, kind, page, sessions, pageviews, events, bounces, duration_ms, visitors)
  select $1, $2::date, sel, kind, page, sessions, pageviews, events, bounces, duration_ms, added from entry_delta
  on conflict (project_id, day, sel, kind, page) do update set sessions = r.sessions + excluded.sessions,
    pageviews = r.pageviews + excluded.pageviews, events = r.events + excluded.events,
    bounces = r.bounces + excluded.bounces, duration_ms = r.duration_ms + excluded.duration_ms,
    -- the stored array is kept as it is (not rewritten) when nothing joins or leaves it
    visitors = case
      when excluded.visitors <@ r.visitors
        and not exists (select 1 from gone g where g.sel = r.sel and g.kind = r.kind and g.page = r.page)
      then r.visitors
      else array(
        select distinct v from unnest(r.visitors || excluded.visitors) v
        where not exists (select 1 from gone g where g.sel = r.sel and g.kind = r.kind and g.page = r.page and g.h = v)
        order by v)
    end
  returning 1
),
listed as (
  select session_id, hashtextextended(min(visitor_id), 0) as visitor_hash, bit_or(1 << sel)::smallint as sel_mask,
    min(entry_page) as entry_page, min(exit_page) as exit_page
  from counted where w = 1
  group by 1
),
-- a listed session whose span now leaves the day is no longer counted there
d_sessions as (
  delete from rollup_day_entry_sessions s
  where s.project_id = $1 and s.day = $2::date and s.session_id in (select session_id from touched)
    and not exists (
      select 1 from sessions x
      where x.project_id = $1 and x.id = s.session_id and x.started_at >= ($2::date::timestamp at time zone 'UTC')
        and x.last_activity < ($3::date::timestamp at time zone 'UTC'))
  returning 1
),
i_sessions as (
  insert into rollup_day_entry_sessions as r (project_id, day, session_id, visitor_hash, sel_mask, entry_page, exit_page)
  select $1, $2::date, session_id, visitor_hash, sel_mask, entry_page, exit_page from listed
  on conflict (project_id, day, session_id) do update set visitor_hash = excluded.visitor_hash,
    sel_mask = excluded.sel_mask, entry_page = excluded.entry_page, exit_page = excluded.exit_page
  returning 1
)
select (select count(*) from i_totals)::int as totals, (select count(*) from i_visitors)::int as visitors,
  (select count(*) from i_split)::int as split, (select count(*) from u_day)::int as days,
  (select count(*) from i_entry)::int as entry,
  (select count(*) from d_sessions)::int + (select count(*) from i_sessions)::int as listed,
  (select coalesce(array_agg(distinct page), '{}') from entry_delta) as pages

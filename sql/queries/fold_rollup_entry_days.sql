-- Folds the marked events and sessions of one built day into its entry and exit page rows (as
-- fold_rollup_days.sql; build_rollup_entry_days.sql says what they hold): each session a mark names is
-- taken out as the rows hold it (its pages and selections as rollup_day_entry_sessions lists them, its
-- metrics from its events without the marked ones) and put back as it is now (its sessions row's pages,
-- all its events of the day, unless its span now leaves the day), the sums adjusted and the session's
-- listing replaced. The visitor sets of the rows touched cannot subtract: fold_rollup_entry_visitors.sql,
-- next in the transaction, recounts them from the listing, for the pages this returns.
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns pages (the pages of the rows touched), rows, sessions (rows and listings written)
with m as (
  select distinct event_id, ts from rollup_stale_days
  where project_id = $1 and day = $2::date and event_id is not null
),
touched as (
  select distinct session_id from rollup_stale_days
  where project_id = $1 and day = $2::date and session_id is not null
),
ev as materialized (
  select e.session_id, e.visitor_id, e.name, e.ts, m.event_id is not null as late,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e left join m on m.event_id = e.id and m.ts = e.ts
  where e.project_id = $1 and e.session_id in (select session_id from touched)
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
),
sels as (select (t * 3 + v)::smallint as sel, t, v from generate_series(0, 3) t, generate_series(0, 2) v),
sc as (
  select x.w, ev.session_id, ev.tm, ev.em, min(ev.visitor_id) as visitor_id, min(ev.ts) as first_ts, max(ev.ts) as last_ts,
    count(*) filter (where ev.name = 'pageview') as pageviews,
    count(*) filter (where ev.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where ev.name <> 'engagement') as active
  from ev cross join (values (1), (-1)) x(w)
  where x.w = 1 or not ev.late
  group by 1, 2, 3, 4
),
ss as (
  select sc.w, s.sel, sc.session_id, min(sc.visitor_id) as visitor_id, min(sc.first_ts) as first_ts,
    max(sc.last_ts) as last_ts, sum(sc.pageviews) as pageviews, sum(sc.custom) as custom, sum(sc.active) as active
  from sc join sels s on (sc.tm >> s.t) & 1 = 1 and (sc.em >> s.v) & 1 = 1
  group by 1, 2, 3
  having sum(sc.active) > 0
),
-- each session now (counted if its sessions row lies within the day, under the row's pages) and as the
-- rows hold it (its listing), each looked up by key
counted as (
  select ss.*, x.entry_page, x.exit_page from ss
  join sessions x on x.project_id = $1 and x.id = ss.session_id
    and x.started_at >= ($2::date::timestamp at time zone 'UTC') and x.last_activity < ($3::date::timestamp at time zone 'UTC')
  where ss.w = 1
  union all
  select ss.*, k.entry_page, k.exit_page from ss
  join rollup_day_entry_sessions k on k.project_id = $1 and k.day = $2::date and k.session_id = ss.session_id
  where ss.w = -1 and (k.sel_mask::int >> ss.sel) & 1 = 1
),
keyed as (
  select c.*, k.kind, k.page from counted c
  cross join lateral (values (0::smallint, c.entry_page), (1::smallint, c.exit_page)) as k(kind, page)
  where k.page is not null
),
delta as (
  select sel, kind, page, sum(w) as sessions, sum(w * pageviews) as pageviews, sum(w * active) as events,
    coalesce(sum(w) filter (where pageviews = 1 and custom = 0), 0) as bounces,
    sum(w * extract(epoch from last_ts - first_ts) * 1000) as duration_ms
  from keyed group by 1, 2, 3
),
i_rows as (
  insert into rollup_day_entry as r (project_id, day, sel, kind, page, sessions, pageviews, events, bounces, duration_ms, visitors)
  select $1, $2::date, sel, kind, page, sessions, pageviews, events, bounces, duration_ms, '{}' from delta
  on conflict (project_id, day, sel, kind, page) do update set sessions = r.sessions + excluded.sessions,
    pageviews = r.pageviews + excluded.pageviews, events = r.events + excluded.events,
    bounces = r.bounces + excluded.bounces, duration_ms = r.duration_ms + excluded.duration_ms
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
select coalesce(array_agg(distinct page), '{}') as pages, (select count(*) from i_rows)::int as rows,
  (select count(*) from d_sessions)::int + (select count(*) from i_sessions)::int as sessions
from delta

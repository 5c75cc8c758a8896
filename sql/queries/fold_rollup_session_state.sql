-- The last of a fold's statements before its marks are deleted (src/query/rollup/fold.ts): what the day's
-- rows now hold of each touched session (0086_rollup_session_state.sql), as build_rollup_session_state.sql
-- would count it. A session the fold took from its row (fold_rollup_days.sql's `merged`) adds its marked
-- events: counts add, the span and the paths widen, and the last pageview is the last marked one (with
-- the reports after it) or the held one with the marked reports added. Any other touched session is
-- counted from its events of the day; one whose events now span classes has no row. Days before
-- yesterday keep no rows (the fold drops the project's).
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns sessions (rows written), dropped (rows deleted)
with since as (select (now() at time zone 'UTC')::date - 1 as day),
touched as (
  select distinct session_id from rollup_stale_days
  where project_id = $1 and day = $2::date and session_id is not null
),
-- the marked events with what the day's rows hold of their sessions, and the merged sessions: those taken
-- from what the rows hold of them plus their marked events (create_rollup_fold_marks.sql)
mev as materialized (select * from rollup_fold_marks),
merged as materialized (select distinct on (session_id) * from mev where merged),
-- the other touched sessions' events of the day, every one now held
ev as materialized (
  select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e, since
  where e.project_id = $1 and $2::date >= since.day
    and e.session_id in (select session_id from touched except select session_id from merged)
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
),
-- the events the fold adds up per session: a merged session's marked events (all after what its row
-- holds), any other session's events of the day; each with the pageviews after it, as
-- build_rollup_session_state.sql finds the last pageview and the reports on its page
after as (
  select session_id, id, visitor_id, name, ts, path, time_ms, scroll, tm, em, k from mev where merged
  union all
  select session_id, id, visitor_id, name, ts, path, time_ms, scroll, tm, em, null from ev
),
ordered as (
  select a.*, row_number() over w as back,
    count(*) filter (where name = 'pageview') over (w rows between unbounded preceding and 1 preceding) as pv_after
  from after a
  window w as (partition by session_id order by ts desc, id desc)
),
agg as (
  select session_id, (array_agg(k) filter (where (k).session_id is not null))[1] as k, min(tm) as tm, max(tm) as tm_max,
    min(em) as em, max(em) as em_max, min(visitor_id) as visitor_min, max(visitor_id) as visitor_max,
    min(ts) as first_ts, max(ts) as last_ts, min(id) filter (where back = 1) as last_id,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where name <> 'engagement') as active,
    coalesce(array_agg(distinct path) filter (where name <> 'engagement' and path is not null), '{}') as paths,
    min(ts) filter (where name = 'pageview' and pv_after = 0) as lp_ts,
    min(id) filter (where name = 'pageview' and pv_after = 0) as lp_id,
    min(path) filter (where name = 'pageview' and pv_after = 0) as lp_path,
    max(time_ms) filter (where name = 'engagement' and pv_after = 0) as lp_time,
    max(scroll) filter (where name = 'engagement' and pv_after = 0) as lp_scroll
  from ordered group by 1
),
-- a merged session's row (k) with its marked events added: its last pageview is its last marked one, else
-- the held one with the marked reports added; any other session as counted, when its events share one class
state as (
  select session_id, (k).tm, (k).em, least((k).visitor_min, visitor_min) as visitor_min,
    greatest((k).visitor_max, visitor_max) as visitor_max, least((k).first_ts, first_ts) as first_ts,
    greatest((k).last_ts, last_ts) as last_ts, last_id, (k).pageviews + pageviews as pageviews,
    (k).custom + custom as custom, (k).active + active as active,
    array(select distinct p from unnest((k).paths || paths) p order by p) as paths,
    coalesce(lp_ts, (k).lp_ts) as lp_ts, coalesce(lp_id, (k).lp_id) as lp_id,
    case when lp_ts is not null then lp_path else (k).lp_path end as lp_path,
    case when lp_ts is not null then lp_time when (k).lp_ts is not null then greatest((k).lp_time, lp_time) end as lp_time,
    case when lp_ts is not null then lp_scroll when (k).lp_ts is not null then greatest((k).lp_scroll, lp_scroll) end
      as lp_scroll
  from agg where (k).session_id is not null
  union all
  select session_id, tm, em, visitor_min, visitor_max, first_ts, last_ts, last_id, pageviews, custom, active, paths,
    lp_ts, lp_id, lp_path, case when lp_ts is not null then lp_time end, case when lp_ts is not null then lp_scroll end
  from agg where (k).session_id is null and tm = tm_max and em = em_max
),
dropped as (
  delete from rollup_day_session_state s using since
  where s.project_id = $1 and (s.day < since.day
    or s.day = $2::date and s.session_id in (select session_id from touched)
      and s.session_id not in (select session_id from state))
  returning 1
),
written as (
  insert into rollup_day_session_state as r (project_id, day, session_id, tm, em, visitor_min, visitor_max, first_ts,
    last_ts, last_id, pageviews, custom, active, paths, lp_ts, lp_id, lp_path, lp_time, lp_scroll)
  select $1, $2::date, session_id, tm, em, visitor_min, visitor_max, first_ts, last_ts, last_id, pageviews, custom,
    active, paths, lp_ts, lp_id, lp_path, lp_time, lp_scroll
  from state, since where $2::date >= since.day
  on conflict (project_id, day, session_id) do update set tm = excluded.tm, em = excluded.em,
    visitor_min = excluded.visitor_min, visitor_max = excluded.visitor_max, first_ts = excluded.first_ts,
    last_ts = excluded.last_ts, last_id = excluded.last_id, pageviews = excluded.pageviews, custom = excluded.custom,
    active = excluded.active, paths = excluded.paths, lp_ts = excluded.lp_ts, lp_id = excluded.lp_id,
    lp_path = excluded.lp_path, lp_time = excluded.lp_time, lp_scroll = excluded.lp_scroll
  returning 1
)
select (select count(*) from written)::int as sessions, (select count(*) from dropped)::int as dropped

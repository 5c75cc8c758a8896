-- Builds what the rows of one project's UTC days [$2, $3) hold of each session (0086_rollup_session_state.sql),
-- for the days from yesterday on: the session-days whose events share one class, counted as
-- build_rollup_days.sql and build_rollup_page_days.sql count them (a step of BUILD_STATEMENTS, after
-- delete_rollup_days). Also drops the rows of days before yesterday, which no fold reads any more.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns sessions (rows inserted), dropped (rows of older days deleted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e
  -- yesterday's start written out (now() is fixed for the statement), so the scan starts there
  where e.project_id = $1
    and e.ts >= (greatest($2::date, (now() at time zone 'UTC')::date - 1)::timestamp at time zone 'UTC')
    and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
),
-- each event with the pageviews after it in its session-day: the last pageview is the one with none, and
-- so are the reports on its page (pageFactsSql's sequence); the last event is the first in reverse order
ordered as (
  select ev.*, row_number() over w as back,
    count(*) filter (where name = 'pageview') over (w rows between unbounded preceding and 1 preceding) as pv_after
  from ev
  window w as (partition by day, session_id order by ts desc, id desc)
),
agg as (
  select day, session_id, min(tm) as tm, min(em) as em, min(visitor_id) as visitor_min, max(visitor_id) as visitor_max,
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
  from ordered group by 1, 2
  having min(tm) = max(tm) and min(em) = max(em)
),
dropped as (
  delete from rollup_day_session_state s
  where s.project_id = $1 and s.day < (now() at time zone 'UTC')::date - 1
  returning 1
),
inserted as (
  insert into rollup_day_session_state (project_id, day, session_id, tm, em, visitor_min, visitor_max, first_ts,
    last_ts, last_id, pageviews, custom, active, paths, lp_ts, lp_id, lp_path, lp_time, lp_scroll)
  select $1, day, session_id, tm, em, visitor_min, visitor_max, first_ts, last_ts, last_id, pageviews, custom, active,
    paths, lp_ts, lp_id, lp_path,
    -- reports before any pageview belong to no page
    case when lp_ts is not null then lp_time end, case when lp_ts is not null then lp_scroll end
  from agg
  returning 1
)
select (select count(*) from inserted)::int as sessions, (select count(*) from dropped)::int as dropped

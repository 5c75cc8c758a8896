-- What a day's rows hold of each of its sessions, so a fold can take a session out and put it back without
-- reading its events again (src/query/rollup/fold.ts). A live session is long: folding today's newest
-- events recounted every touched session from all its events of the day twice, ~0.8 ms a marked event,
-- more than a core at 2,000 events a second. With this row an event that comes after everything the rows
-- hold of its session costs its own share: counts add, the span widens, and only the last pageview's time
-- on page and scroll depth can change (its next pageview arrives, or a later engagement report).
--
-- One row per session-day whose held events (the day's events without the marked ones) share one traffic
-- and environment class, kept for today and yesterday only: late events reach no further back in the
-- usual case, and a session without a row is recounted from its events as before.
create table rollup_day_session_state (
  project_id  text not null,
  day         date not null,
  session_id  text not null,
  tm          smallint not null,  -- loupe_traffic_bits of every held event
  em          smallint not null,  -- loupe_environment_bits of every held event
  visitor_min text not null,
  visitor_max text not null,
  first_ts    timestamptz not null,
  last_ts     timestamptz not null,
  last_id     text not null,      -- with last_ts, the last held event in (ts, id) order
  pageviews   integer not null,
  custom      integer not null,   -- events counted as custom (not pageview, engagement, speed or error)
  active      integer not null,   -- events other than engagement
  paths       text[] not null,    -- the distinct paths of the held events other than engagement
  lp_ts       timestamptz,        -- the last held pageview (null: none yet), its path, and the largest
  lp_id       text,               -- time on page and scroll depth reported after it
  lp_path     text,
  lp_time     float8,
  lp_scroll   float8,
  primary key (project_id, day, session_id)
);

-- How many event marks a day may gather and still be read as its rows plus the marks' share
-- (src/query/rollup/late.ts, list_rollup_days_pending.sql); past it the day is read from events until the
-- builder folds or rebuilds it. Today and yesterday keep their sessions' held state, so a mark of a
-- session going on costs a read its own share; before yesterday every touched session is counted from
-- its events, twice.
create or replace function loupe_patch_limit(day date) returns integer language sql stable as $$
  select case when day >= (now() at time zone 'UTC')::date - 1 then 20000 else 5000 end
$$;

-- A fold's marked events of one project's day (fold_rollup_days.sql and the statements after it), each
-- with its page columns and class, what the day's rows hold of its session (k, looked up by key), whether
-- that session is merged, and what the session's marked events add (m_*; m_paths may repeat a path). A
-- session is merged when every marked event of it comes after everything held, in the held events'
-- class: the fold takes it from k plus its marked events, not from its events.
create function loupe_fold_marks(p text, d date) returns table (
  id text, session_id text, visitor_id text, name text, ts timestamptz, path text, time_ms float8, scroll float8,
  tm int, em int, k rollup_day_session_state, merged boolean, m_visitor_min text, m_visitor_max text,
  m_first_ts timestamptz, m_last_ts timestamptz, m_pageviews bigint, m_custom bigint, m_active bigint,
  m_paths text[]
) language sql stable as $$
  select mk.*,
    coalesce(bool_and((mk.k).tm = mk.tm and (mk.k).em = mk.em and (mk.ts, mk.id) > ((mk.k).last_ts, (mk.k).last_id))
      over s, false),
    min(mk.visitor_id) over s, max(mk.visitor_id) over s, min(mk.ts) over s, max(mk.ts) over s,
    count(*) filter (where mk.name = 'pageview') over s,
    count(*) filter (where mk.name not in ('pageview', 'engagement', 'speed', 'error')) over s,
    count(*) filter (where mk.name <> 'engagement') over s,
    coalesce(array_agg(mk.path) filter (where mk.name <> 'engagement' and mk.path is not null) over s, '{}')
  from (
    select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
      case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
      case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
      loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em,
      (select k from rollup_day_session_state k
       where k.project_id = p and k.day = d and k.session_id = e.session_id) as k
    from rollup_stale_days m
    join events e on e.project_id = p and e.ts = m.ts and e.id = m.event_id
      and e.ts >= (d::timestamp at time zone 'UTC') and e.ts < ((d + 1)::timestamp at time zone 'UTC')
    where m.project_id = p and m.day = d and m.event_id is not null
  ) mk
  window s as (partition by mk.session_id)
$$;

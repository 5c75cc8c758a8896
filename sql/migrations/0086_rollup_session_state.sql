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

-- The page breakdown's session and page metrics (sessions, bounce rate, session duration, pages per
-- session, time on page, scroll depth: the API's default for the page breakdown) under filters on both
-- families of dimensions, as 0092 keeps them under one family (build_rollup_set_sessions.sql,
-- src/query/rollup/set-pages.ts). Read from events at 1M events under device=mobile & channel=Direct over
-- 30 days, the page breakdown with its default metrics took 3.4–4.5 s.
--
-- Per day, pair of sets (visitor-level and acquisition), class and page path, of the session-days pure in
-- class and in both sets: those that touched the page (sessions, bounces, their pageviews and summed
-- duration) and the page facts of their pageviews on it. Every other session-day is listed in
-- rollup_day_session_parts, and a read takes it from its events. Views, events and visitors per page come
-- from rollup_day_cross_pages (0094). Also, as 0097 keeps them per set, the sessions of the path (a
-- session-day's events on it) pure in class and both sets, for stats and the chart under `page=X` beside
-- filters on both families (the others are in rollup_day_value_parts).
create table rollup_day_cross_page_facts (
  project_id        text not null,
  day               date not null,
  dim_set_id        integer not null,
  acq_set_id        integer not null,
  tm                smallint not null,
  em                smallint not null,
  path              text not null,
  sessions          integer not null,
  bounces           integer not null,
  session_pageviews bigint not null,
  duration_ms       numeric not null,
  time_sum          float8 not null,
  time_count        integer not null,
  scroll_sum        float8 not null,
  scroll_count      integer not null,
  path_sessions     integer not null,
  path_pageviews    bigint not null,
  path_bounces      integer not null,
  path_duration_ms  numeric not null
);

-- No primary key: the build inserts each (day, pair of sets, class, path) once, from one grouping, and
-- every read or delete goes by project and days, where a key over the seven columns took 40 MB at 1M
-- events (half the table: each day's rows land in the middle of the index) against 3 MB for this one.
create index rollup_day_cross_page_facts_day on rollup_day_cross_page_facts (project_id, day);
-- One path's rows over a range, as 0097's index on the page facts per set: the session metrics under
-- `page=X` beside both families' filters read them (without it the planner read the whole table: 125 ms at
-- 1M events).
create index rollup_day_cross_page_facts_path on rollup_day_cross_page_facts (project_id, path, day);

-- The days counted before have no rows here: counted again by the background builder
-- (list_rollup_set_session_days_to_build.sql takes a day without its record first; reads under filters
-- take such a day from events meanwhile).
delete from rollup_set_session_days;

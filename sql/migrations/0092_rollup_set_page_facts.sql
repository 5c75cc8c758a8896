-- The page breakdown's session and page metrics (sessions, bounce rate, session duration, pages per
-- session, time on page, scroll depth: the API's default for the page breakdown) under filters on one
-- family of dimensions, counted with the session facts per set of values (0089; build_rollup_set_sessions.sql,
-- src/query/rollup/set-pages.ts). Under a filter a session is its events that match, and it counts for
-- each page it has such an event on; a page fact (time on page, scroll depth) is sequenced over all the
-- session's events and kept by its pageview's own values (metrics.ts pageFactsSql).
--
-- Per day, set of the family, class and page path: the non-engagement events on the page of that set and
-- class and their pageviews (every session-day's); the session-days pure in class and set that touched the
-- page (sessions, bounces, their pageviews and summed duration); and the page facts of the pageviews of
-- that set and class in session-days of one class that a read does not take from events (those pure in
-- the family's set, and for the acquisition family the pairs of rollup_day_acq_pairs).
create table rollup_day_dim_page_facts (
  project_id        text not null,
  day               date not null,
  set_id            integer not null,
  tm                smallint not null,
  em                smallint not null,
  path              text not null,
  pageviews         bigint not null,
  events            bigint not null,
  sessions          integer not null,
  bounces           integer not null,
  session_pageviews bigint not null,
  duration_ms       numeric not null,
  time_sum          float8 not null,
  time_count        integer not null,
  scroll_sum        float8 not null,
  scroll_count      integer not null,
  primary key (project_id, day, set_id, tm, em, path)
);

create table rollup_day_acq_page_facts (like rollup_day_dim_page_facts including all);

-- The session-days of rollup_day_acq_pairs per page they touched: the whole session-days (n, their
-- pageviews, bounces and duration) that touched it, and the sessions whose `a` part (`b` part) touched it,
-- with that part's facts, as a filter that matches one part only counts it.
create table rollup_day_acq_page_pairs (
  project_id    text not null,
  day           date not null,
  tm            smallint not null,
  em            smallint not null,
  a_set_id      integer not null,
  b_set_id      integer not null,
  path          text not null,
  n             integer not null,
  pageviews     bigint not null,
  bounces       integer not null,
  duration_ms   numeric not null,
  a_sessions    integer not null,
  a_pageviews   bigint not null,
  a_bounces     integer not null,
  a_duration_ms numeric not null,
  b_sessions    integer not null,
  b_pageviews   bigint not null,
  b_bounces     integer not null,
  b_duration_ms numeric not null,
  primary key (project_id, day, tm, em, a_set_id, b_set_id, path)
);

-- The days counted before these tables have no rows in them: counted again by the background builder
-- (list_rollup_set_session_days_to_build.sql takes a day without its record first; reads under filters
-- take such a day from events meanwhile).
delete from rollup_set_session_days;

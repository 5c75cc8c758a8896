-- Session facts per set of values, so the statistic block and the chart's session metrics under filters on
-- the visitor-level and the acquisition dimensions are summed from rows instead of grouped from every
-- event of the range (src/query/rollup/set-sessions.ts). A session under a filter is its events that
-- match (stats.ts sessionsSql): a session-day whose events all share one class and one set of values is
-- all in or all out of any filter on that family, so it is counted in the cell of that set. One whose
-- events differ (a visitor who changed network mid-visit, or, for the acquisition values, which are each
-- event's own, a visit that came from a search and went on within the site) is kept as its parts, one per
-- class and pair of sets, which a read combines per session under its filters.
--
-- Session-days pure in class and visitor-level set: sessions, pageviews, bounces, summed duration.
create table rollup_day_dim_sessions (
  project_id  text not null,
  day         date not null,
  set_id      integer not null,
  tm          smallint not null,
  em          smallint not null,
  sessions    integer not null,
  pageviews   bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, set_id, tm, em)
);

-- Session-days pure in class and acquisition set, the same facts.
create table rollup_day_acq_sessions (
  project_id  text not null,
  day         date not null,
  set_id      integer not null,
  tm          smallint not null,
  em          smallint not null,
  sessions    integer not null,
  pageviews   bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, set_id, tm, em)
);

-- Session-days pure in class and both sets, the same facts.
create table rollup_day_cross_sessions (
  project_id  text not null,
  day         date not null,
  dim_set_id  integer not null,
  acq_set_id  integer not null,
  tm          smallint not null,
  em          smallint not null,
  sessions    integer not null,
  pageviews   bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, dim_set_id, acq_set_id, tm, em)
);

-- Session-days of one class and one visitor-level set whose events carry exactly two acquisition sets (the
-- usual mixed visit: a landing from a search, a campaign or a link, then pages within the site, Direct),
-- per pair of sets (a_set_id < b_set_id): the facts of the whole session-days (n, pageviews, bounces,
-- duration), and of each part alone, as a filter that matches one part only counts it. A filter on
-- acquisition values alone sums these rows instead of combining the sessions' parts.
create table rollup_day_acq_pairs (
  project_id    text not null,
  day           date not null,
  tm            smallint not null,
  em            smallint not null,
  a_set_id      integer not null,
  b_set_id      integer not null,
  n             integer not null,
  pageviews     bigint not null,
  bounces       integer not null,
  duration_ms   numeric not null,
  a_sessions    integer not null, -- the sessions whose `a` part has a non-engagement event
  a_pageviews   bigint not null,
  a_bounces     integer not null,
  a_duration_ms numeric not null,
  b_sessions    integer not null,
  b_pageviews   bigint not null,
  b_bounces     integer not null,
  b_duration_ms numeric not null,
  primary key (project_id, day, tm, em, a_set_id, b_set_id)
);

-- The parts of the other session-days (with a non-engagement event), one per class and pair of sets:
-- their span and counts. dim_mixed: the session-day is not pure in class and visitor-level set (so not in
-- rollup_day_dim_sessions); acq_mixed: not in acquisition set; acq_paired: counted in rollup_day_acq_pairs.
create table rollup_day_session_parts (
  project_id text not null,
  day        date not null,
  session_id text not null,
  tm         smallint not null,
  em         smallint not null,
  dim_set_id integer not null,
  acq_set_id integer not null,
  dim_mixed  boolean not null,
  acq_mixed  boolean not null,
  acq_paired boolean not null,
  first_ts   timestamptz not null,
  last_ts    timestamptz not null,
  pageviews  integer not null,
  custom     integer not null, -- events counted as custom (not pageview, engagement, speed or error)
  active     integer not null, -- events other than engagement
  primary key (project_id, day, session_id, tm, em, dim_set_id, acq_set_id)
);
-- A filter on one family reads only the parts of the sessions mixed in it, a few of all the parts (most
-- are the acquisition pairs' own, which such a read takes from rollup_day_acq_pairs).
create index rollup_day_session_parts_dim_mixed on rollup_day_session_parts (project_id, day) where dim_mixed;
create index rollup_day_session_parts_acq_mixed on rollup_day_session_parts (project_id, day)
  where acq_mixed and not acq_paired;

-- The days whose five tables above are current. A fold changes a day's sessions without recounting
-- these, so it deletes the day's rows and this one; the background builder counts them again once the day
-- has closed and has no mark (list_rollup_set_session_days_to_build.sql). Until then a read under filters
-- takes the day from events.
create table rollup_set_session_days (
  project_id text not null,
  day        date not null,
  primary key (project_id, day)
);

-- The page breakdown's value rows under filters on one family: per day, set of visitor-level values (or of
-- acquisition values), class and page path, the non-engagement events and pageviews on the page and the
-- distinct visitors' 64-bit hashes, as rollup_day_dims and rollup_day_acq hold them per set alone
-- (src/query/rollup/dims.ts rollupFilteredPageGroups). Events without a path have no row.
create table rollup_day_dim_pages (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  path       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, path)
);

create table rollup_day_acq_pages (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  path       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, path)
);

-- Days built before these tables have no rows in them: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

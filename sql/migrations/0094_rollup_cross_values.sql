-- Page paths and event names per pair of sets (a visitor-level one and an acquisition one), so the page
-- and event breakdowns (the overview's Top pages and Events panels, and below its Entry and Exit pages)
-- under filters on both families sum
-- rows instead of grouping every event of the range, as the per-set page and name rows (0089, 0090) do
-- under one family's filters (src/query/rollup/set-values.ts): per day, class, pair of sets and path (or
-- name), the non-engagement events and pageviews and the distinct visitors' 64-bit hashes. Built by
-- build_rollup_set_value_days.sql, folded per event by fold_rollup_value_days.sql. The page rows leave
-- out events without a path (a server's events); the name rows hold every non-engagement event.
create table rollup_day_cross_pages (
  project_id text not null,
  day        date not null,
  dim_set_id integer not null,
  acq_set_id integer not null,
  tm         smallint not null,
  em         smallint not null,
  path       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, dim_set_id, acq_set_id, tm, em, path)
);

create table rollup_day_cross_names (
  project_id text not null,
  day        date not null,
  dim_set_id integer not null,
  acq_set_id integer not null,
  tm         smallint not null,
  em         smallint not null,
  name       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, dim_set_id, acq_set_id, tm, em, name)
);

-- Entry and exit pages per pair of sets, as rollup_day_dim_entry and rollup_day_acq_entry hold them per set
-- (0090): per day, class, pair of sets, kind (0 entry, 1 exit) and the session's page, the non-engagement
-- events and pageviews of the sessions that lie within the day and their visitors' hashes. Session facts:
-- built and counted again with them (build_rollup_set_sessions.sql), deleted by a fold.
create table rollup_day_cross_entry (
  project_id text not null,
  day        date not null,
  dim_set_id integer not null,
  acq_set_id integer not null,
  tm         smallint not null,
  em         smallint not null,
  kind       smallint not null,
  page       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, dim_set_id, acq_set_id, tm, em, kind, page)
);

-- Days built before these tables have no rows in them: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

-- Event names per set of values, so the event breakdown (the overview's Events panel) under filters on the
-- visitor-level or the acquisition dimensions sums rows instead of grouping every event of the range
-- (src/query/rollup/props.ts rollupEventGroups): per day, class, set of one family and event name, the
-- non-engagement events and pageviews and the distinct visitors' 64-bit hashes, as the per-set page rows
-- (0089) hold them per path. Built by build_rollup_set_value_days.sql, folded per event by
-- fold_rollup_value_days.sql.
create table rollup_day_dim_names (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  name       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, name)
);

create table rollup_day_acq_names (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  name       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, name)
);

-- Entry and exit pages per set of values, so those breakdowns under filters on one family sum rows too
-- (src/query/rollup/entry.ts rollupFilteredEntryGroups): per day, class, set of one family, kind (0 entry,
-- 1 exit) and the session's page, the non-engagement events and pageviews of the sessions that lie within
-- the day (as rollup_day_entry counts them; a read recomputes the split ones) and their visitors' hashes.
-- Session facts like those of 0089: built and counted again with them (build_rollup_set_sessions.sql),
-- deleted by a fold.
create table rollup_day_dim_entry (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  kind       smallint not null,
  page       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, kind, page)
);

create table rollup_day_acq_entry (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  kind       smallint not null,
  page       text not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em, kind, page)
);

-- A read takes one kind of a day's rows for the sets its filters select: through this index the planner
-- joins the sets before it tests the rows' visitors against the split sessions' (value-rows.ts withAdded),
-- which it did on every row of the day otherwise (0.86 s against 0.39 s at 10M events under device=mobile).
create index rollup_day_dim_entry_kind on rollup_day_dim_entry (project_id, day, kind, set_id);
create index rollup_day_acq_entry_kind on rollup_day_acq_entry (project_id, day, kind, set_id);

-- Session facts per page path and per event name, so the statistic block and the chart's session metrics
-- under a filter on the page or on the event alone (a row of the page or events panel clicked) sum rows too
-- (src/query/rollup/set-sessions.ts): under `page=X` a session is its events on X, under `event=X` its
-- events named X, so each session-day's events of one value are a session of that value. Per day, kind
-- (0 page path, 1 event name), value and class, those pure in class: sessions, pageviews, bounces, summed
-- duration. The few whose events of the value differ in class are kept as their parts, which a read
-- combines per session. Counted with the session facts of 0089 (build_rollup_set_sessions.sql), deleted
-- by a fold.
create table rollup_day_value_sessions (
  project_id  text not null,
  day         date not null,
  kind        smallint not null,
  value       text not null,
  tm          smallint not null,
  em          smallint not null,
  sessions    integer not null,
  pageviews   bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, kind, value, tm, em)
);

create table rollup_day_value_parts (
  project_id text not null,
  day        date not null,
  kind       smallint not null,
  value      text not null,
  session_id text not null,
  tm         smallint not null,
  em         smallint not null,
  first_ts   timestamptz not null,
  last_ts    timestamptz not null,
  pageviews  integer not null,
  custom     integer not null,
  active     integer not null,
  primary key (project_id, day, kind, value, session_id, tm, em)
);

-- A filter on the page alone reads the acquisition sets' page rows of that path (the coarser family: fewer
-- rows a path), found through this index rather than among every row of the range's days.
create index rollup_day_acq_pages_path on rollup_day_acq_pages (project_id, path, day);

-- Days built before these tables have no rows in them: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

-- The session facts per page path and per event name (0090) per visitor-level set too, so the statistic
-- block and the chart's session metrics under a page or event filter beside filters on the visitor-level
-- dimensions (a row of the page panel clicked, then one of the devices or locations panel: `page=X &
-- device=mobile`) sum rows as under the page or event filter alone (src/query/rollup/set-sessions.ts).
-- Under such filters a session is its events on X (or named X) that match the others; a session-day's
-- events of one value that share one class and one set are all in or all out, so they are summed in the
-- cells of that value, class and set; those that mix classes or sets are kept as their parts (one per class
-- and set), which a read combines per session. Under the page or event filter alone a read sums every set's
-- cells and combines every part, as before.
drop table rollup_day_value_sessions;
drop table rollup_day_value_parts;

create table rollup_day_value_sessions (
  project_id  text not null,
  day         date not null,
  kind        smallint not null,
  value       text not null,
  dim_set_id  integer not null,
  tm          smallint not null,
  em          smallint not null,
  sessions    integer not null,
  pageviews   bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, kind, value, dim_set_id, tm, em)
);

create table rollup_day_value_parts (
  project_id text not null,
  day        date not null,
  kind       smallint not null,
  value      text not null,
  session_id text not null,
  dim_set_id integer not null,
  tm         smallint not null,
  em         smallint not null,
  first_ts   timestamptz not null,
  last_ts    timestamptz not null,
  pageviews  integer not null,
  custom     integer not null,
  active     integer not null,
  primary key (project_id, day, kind, value, session_id, dim_set_id, tm, em)
);

-- The days counted before have no rows in these tables: counted again by the background builder
-- (list_rollup_set_session_days_to_build.sql takes a day without its record first, and its recount deletes
-- the day's other session facts first; reads under filters take such a day from events meanwhile).
delete from rollup_set_session_days;

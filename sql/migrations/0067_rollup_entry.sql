-- Day rollups of the session-entry dimensions (entry and exit page, the sessions row's columns): per
-- day, selection, kind (0 entry page, 1 exit page) and page, the sessions of the day that are not
-- listed as split (rollup_day_split_sessions), with the metrics of metrics.ts groupedSql for them and
-- their visitors' 64-bit hashes. Split sessions are recomputed by each read from their events and
-- their current sessions row (src/query/rollup/entry.ts), because their entry and exit pages can change
-- with events of other days, which do not rebuild this day.
create table rollup_day_entry (
  project_id  text not null,
  day         date not null,
  sel         smallint not null,
  kind        smallint not null,
  page        text not null,
  sessions    integer not null,
  pageviews   bigint not null,
  events      bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  visitors    bigint[] not null,
  primary key (project_id, day, sel, kind, page)
);

-- Days built before this table have no rows in it: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

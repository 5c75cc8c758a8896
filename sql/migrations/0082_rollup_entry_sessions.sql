-- The sessions each day's entry and exit page rows count (rollup_day_entry: those within the day), with
-- the pages they were counted under, their visitor's hash and the selections they count in. A late event
-- can move a session's entry or exit page, and the sessions row then no longer says where the day's rows
-- put it: with this list a read takes such a day from its rows, takes out the sessions late events
-- touched, and counts them again from their events (src/query/rollup/entry.ts).
create table rollup_day_entry_sessions (
  project_id   text not null,
  day          date not null,
  session_id   text not null,
  visitor_hash bigint not null,
  sel_mask     smallint not null,
  entry_page   text,
  exit_page    text,
  primary key (project_id, day, session_id)
);

-- Days built before this table have no rows in it: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

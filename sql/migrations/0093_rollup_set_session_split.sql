-- The sessions a fold found stretched out of a day whose session facts per set of values were counted
-- while they lay within it. Those facts' entry and exit page rows per set (0090) hold only the sessions
-- that lie within their day, under their pages then; a session mark (a late event of another day joined
-- the session, 0081) makes the session split, and the fold lists it in rollup_day_split_sessions, which
-- reads then add under its pages now beside the rows that still hold it. Nothing of such a day is marked
-- or listed as an event its facts lack (0091), so reads under filters took its rows as true. Listed here
-- by the fold (fold_rollup_set_sessions.sql), a day is read by the entry and exit breakdowns under filters
-- as a late day (src/query/rollup/segments.ts `entry`), and the builder counts its facts again as it
-- does for 0091's list.
create table rollup_set_session_split (
  project_id text not null,
  day        date not null,
  session_id text not null,
  at         timestamptz not null default now(),
  primary key (project_id, day, session_id)
);

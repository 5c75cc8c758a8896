-- The events a fold added to a day's rows but not to its session facts per set of values (0089, 0090: the
-- cells, parts and pairs, the entry and exit page rows per set, the facts per page path and event name).
-- A fold deleted those facts, and the builder counted them again only for a closed day without marks, so
-- under a trickle of late events yesterday never had them and every read under filters grouped its
-- events. Now a fold keeps them as they were counted and lists here the events it folded; a read under
-- filters recounts each session-day those events (and the day's pending marks) touch, as the facts hold it
-- and as it is now, and adds the difference (src/query/rollup/late.ts), as it does for the day rows; the
-- builder counts the day's facts again once enough are listed or the oldest is old enough.
create table rollup_set_session_late (
  project_id text not null,
  day        date not null,
  event_id   text not null,
  ts         timestamptz not null,
  session_id text not null,
  at         timestamptz not null default now(),
  primary key (project_id, day, event_id, ts)
);

-- Marks that say what changed, not only which day: a flush that writes a few events into a built past day
-- marks each event (event_id, its ts and session), and a checkpoint that stretches a session into a past
-- day marks the session (session_id alone). Such a day stays readable from its rollup rows: a read adds
-- the marked events' share (src/query/rollup/late.ts) instead of reading the whole day from events, and
-- the builder takes its time to rebuild it (list_rollup_days_to_build.sql). A mark with neither (a seed, a
-- retention pass, the visitor-internal PATCH, a flush with many events of the day) means the whole day, as
-- before. The build statements leave out the events whose marks they see: a day's rows are exactly the
-- events whose marks the build's first step deleted, whatever commits between its steps.
alter table rollup_stale_days
  add column event_id text,
  add column session_id text,
  add column ts timestamptz;

create index rollup_stale_days_events on rollup_stale_days (project_id, day, event_id) where event_id is not null;

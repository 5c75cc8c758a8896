-- Whole-day marks (no event, no session) on their own: every read asks whether a day of its range has
-- one (list_rollup_days_pending.sql), and under heavy ingest today holds a hundred thousand event marks
-- beside them, which the (project_id, day) index made that question walk one by one.
create index rollup_stale_days_whole on rollup_stale_days (project_id, day) where event_id is null and session_id is null;

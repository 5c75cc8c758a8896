-- The sessions with events on one UTC day of a project, for a rebuild of the day (src/db/rollup-apply.ts).
-- Events without a session (engagement reports with no live session) add nothing to any rollup.
-- $1 project_id, $2 day (date)
-- returns session_id
select distinct session_id from events
where project_id = $1 and ts >= ($2::date::timestamp at time zone 'UTC') and ts < (($2::date + 1)::timestamp at time zone 'UTC')
  and session_id <> ''

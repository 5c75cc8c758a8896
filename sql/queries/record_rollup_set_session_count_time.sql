-- How long the background builder took to count one day's session facts per set of values again
-- (0101): the next count of the day waits ten times this (list_rollup_set_session_days_to_build.sql).
-- $1 project_id, $2 day (date), $3 milliseconds
-- returns nothing
update rollup_set_session_days set count_ms = $3 where project_id = $1 and day = $2::date

-- How long the background builder took to build one day (0083_rollup_build_time.sql): a rebuild of today
-- waits twenty times this (list_rollup_days_to_build.sql).
-- $1 project_id, $2 day (date), $3 milliseconds
-- returns nothing
update rollup_days set build_ms = $3 where project_id = $1 and day = $2::date

-- How long the background builder took to fold one day's marks (0085_rollup_folds.sql): the next fold of
-- the day waits twenty times this (list_rollup_days_to_build.sql).
-- $1 project_id, $2 day (date), $3 milliseconds
-- returns nothing
update rollup_days set fold_ms = $3 where project_id = $1 and day = $2::date

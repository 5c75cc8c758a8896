-- The time of a project's first raw speed sample in [$2, $3), for the `speed` job's walk over old days.
-- $1 project_id, $2 from, $3 to
-- returns ts (null when there is none)
select min(ts) as ts from speed_samples where project_id = $1 and ts >= $2 and ts < $3

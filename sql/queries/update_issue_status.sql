-- Applies a lifecycle transition decided by the machine, only if the issue is still in the state it
-- was decided from (an occurrence may have changed it meanwhile).
-- $1 project_id, $2 id, $3 expected status, $4 status, $5 is_regression, $6 resolved_at
-- returns id, status, resolved_at
update issues set status = $4, is_regression = $5, resolved_at = $6
where project_id = $1 and id = $2 and status = $3
returning id, status, resolved_at

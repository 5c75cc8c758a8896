-- One issue's lifecycle state.
-- $1 project_id, $2 id
-- returns id, status, is_regression, resolved_at
select id, status, is_regression, resolved_at from issues where project_id = $1 and id = $2

-- Deletes one annotation.
-- $1 project_id, $2 id
-- returns id (no row when it did not exist)
delete from annotations where project_id = $1 and id = $2 returning id

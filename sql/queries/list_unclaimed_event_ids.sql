-- The ids of a project's events whose journal rows no checkpoint has claimed yet: a rebuild leaves them
-- out of the dimension and prop rows, which the checkpoint that claims them adds them to.
-- $1 project_id
-- returns id
select jsonb_array_elements_text(body::jsonb -> 'ids') as id from fold_journal where project_id = $1

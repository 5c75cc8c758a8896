-- Keeps one flush's session and visitor deltas until a checkpoint applies them (same transaction as the flush).
-- $1 project_id, $2 owner (process id), $3 body json text {"sessions": […], "visitors": […]}
-- returns id
insert into fold_journal (project_id, owner, body) values ($1, $2, $3) returning id::text

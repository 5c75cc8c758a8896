-- Deletes a project; its events, sessions and other rows go with it (foreign keys cascade).
-- $1 id
delete from projects where id = $1 returning id

-- Deletes a project and every row that belongs to it.
-- $1 id
with rows as (select loupe_delete_project_rows($1))
delete from projects where id = $1 and exists (select 1 from rows) returning id

-- A project's SQL-route login role: its name (unique per database and project, as roles are shared by
-- every database of a cluster) and the password the server logs in with; the password given is kept only
-- when the project has none yet.
-- $1 project id, $2 password
-- returns role_name, password
insert into sql_roles (project_id, role_name, password)
values ($1, 'loupe_sql_' || left(md5(current_database() || '/' || $1), 24), $2)
on conflict (project_id) do update set project_id = excluded.project_id
returning role_name, password

-- Adds a dashboard member, or changes the role and projects of an existing login.
-- $1 id, $2 login, $3 role, $4 project_ids text[] or null, $5 name
insert into dashboard_users (id, login, role, project_ids, name) values ($1, $2, $3, $4, $5)
on conflict (login) do update set role = excluded.role, project_ids = excluded.project_ids,
  name = coalesce(excluded.name, dashboard_users.name), updated_at = now()
returning id, login, role, project_ids, name, created_at

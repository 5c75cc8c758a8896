-- Adds a member; nothing when the login is taken.
-- $1 id, $2 login, $3 role, $4 project_ids text[] or null, $5 name
-- returns id, login, name, avatar_url, role, project_ids, created_at, last_seen_at
insert into dashboard_users (id, login, role, project_ids, name) values ($1, $2, $3, $4, $5)
on conflict (login) do nothing
returning id, login, name, avatar_url, role, project_ids, created_at, last_seen_at

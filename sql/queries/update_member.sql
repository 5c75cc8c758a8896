-- Changes a member's role, projects or name; a null parameter keeps the value ($5 true clears the projects).
-- $1 id, $2 role, $3 project_ids text[], $4 name, $5 clear project_ids
-- returns id, login, name, avatar_url, role, project_ids, created_at, last_seen_at
update dashboard_users set
  role = coalesce($2, role),
  project_ids = case when $5 then null else coalesce($3, project_ids) end,
  name = coalesce($4, name),
  updated_at = now()
where id = $1
returning id, login, name, avatar_url, role, project_ids, created_at, last_seen_at

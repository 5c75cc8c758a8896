-- One member by id, or by login (compared without case: providers differ on an email's case).
-- $1 id or login
-- returns id, login, name, avatar_url, role, project_ids, created_at, last_seen_at
select id, login, name, avatar_url, role, project_ids, created_at, last_seen_at from dashboard_users
where id = $1 or lower(login) = lower($1)
order by (id = $1) desc, (login = $1) desc
limit 1

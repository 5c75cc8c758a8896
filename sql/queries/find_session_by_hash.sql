-- A live sign-in session and its member, by the hash of the cookie value.
-- $1 token_hash
-- returns session_id, expires_at, last_seen_at, user_id, login, name, avatar_url, role, project_ids
select s.id as session_id, s.expires_at, s.last_seen_at, u.id as user_id, u.login, u.name, u.avatar_url, u.role, u.project_ids
from auth_sessions s
join dashboard_users u on u.id = s.user_id
where s.token_hash = $1 and s.expires_at > now()

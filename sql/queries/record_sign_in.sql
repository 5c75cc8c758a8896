-- A member signed in: when, and the name and picture the provider gave (a name set here is kept).
-- $1 id, $2 name, $3 avatar_url
update dashboard_users set last_seen_at = now(), name = coalesce(name, $2), avatar_url = coalesce($3, avatar_url)
where id = $1

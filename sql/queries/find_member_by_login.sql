-- The member a provider's login names (compared without case: providers differ on an email's case). By
-- login only: a login that happens to look like a member id must not sign in as that member.
-- $1 login
-- returns id, login, name, avatar_url, role, project_ids, created_at, last_seen_at
select id, login, name, avatar_url, role, project_ids, created_at, last_seen_at from dashboard_users
where lower(login) = lower($1)
order by (login = $1) desc
limit 1

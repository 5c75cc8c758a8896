-- Every dashboard member, by login.
-- returns id, login, name, avatar_url, role, project_ids, created_at, last_seen_at
select id, login, name, avatar_url, role, project_ids, created_at, last_seen_at from dashboard_users order by login

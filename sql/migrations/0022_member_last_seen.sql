-- When a member last used Loupe (a sign-in, or a session's use, recorded at most hourly), for the members
-- list. Kept on the member, not read from sessions: signing out or a session's expiry keeps it.
alter table dashboard_users add column last_seen_at timestamptz;

-- Drops sign-in sessions that have expired.
-- returns id
delete from auth_sessions where expires_at <= now() returning id

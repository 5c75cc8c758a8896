-- Drops sign-ins that were started and never finished.
-- returns id
delete from auth_flows where expires_at <= now() returning id

-- Ends one sign-in session (sign-out).
-- $1 token_hash
-- returns token_hash
delete from auth_sessions where token_hash = $1 returning token_hash

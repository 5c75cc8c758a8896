-- Starts a sign-in session for a member.
-- $1 id, $2 token_hash, $3 user_id, $4 expires_at
insert into auth_sessions (id, token_hash, user_id, expires_at) values ($1, $2, $3, $4)
returning id, expires_at

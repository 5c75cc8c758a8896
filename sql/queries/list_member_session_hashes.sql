-- The hashes of a member's sessions, so that cached look-ups of them are dropped when the member changes.
-- $1 user id
-- returns token_hash
select token_hash from auth_sessions where user_id = $1

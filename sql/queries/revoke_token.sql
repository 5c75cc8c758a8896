-- Revokes a token; revoking twice keeps the first revocation time.
-- $1 id
-- returns id, revoked_at, token_hash
update api_tokens set revoked_at = coalesce(revoked_at, now())
where id = $1
returning id, revoked_at, token_hash

-- Finds an API token by the hash of its value, revoked and expired ones included (callers decide).
-- $1 token_hash text
-- returns id, name, scope, project_ids, expires_at, revoked_at
select id, name, scope, project_ids, expires_at, revoked_at
from api_tokens
where token_hash = $1

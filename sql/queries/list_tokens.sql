-- Lists API tokens that are not revoked, newest first. Never returns hashes.
-- returns id, name, scope, project_ids, token_hint, expires_at, created_at, last_used_at
select id, name, scope, project_ids, token_hint, expires_at, created_at, last_used_at
from api_tokens
where revoked_at is null
order by created_at desc, id

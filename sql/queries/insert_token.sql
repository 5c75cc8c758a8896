-- Stores a new API token (hash only) and returns its public fields.
-- $1 id, $2 name, $3 scope, $4 project_ids text[] or null, $5 token_hash, $6 token_hint, $7 expires_at or null, $8 created_by
-- returns id, name, scope, project_ids, token_hint, expires_at, created_at
insert into api_tokens (id, name, scope, project_ids, token_hash, token_hint, expires_at, created_by)
values ($1, $2, $3, $4, $5, $6, $7, $8)
returning id, name, scope, project_ids, token_hint, expires_at, created_at

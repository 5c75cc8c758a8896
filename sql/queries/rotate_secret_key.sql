-- Replaces a project's secret key; the old one stops working at once.
-- $1 id, $2 secret_key_hash, $3 secret_key_hint
update projects set secret_key_hash = $2, secret_key_hint = $3, updated_at = now()
where id = $1
returning id, public_key, updated_at

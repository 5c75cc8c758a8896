-- The project a secret key belongs to.
-- $1 secret_key_hash
-- returns id
select id from projects where secret_key_hash = $1

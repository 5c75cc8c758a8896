-- Creates a project with its keys (the secret key as a hash) and its visitor-hashing salt.
-- $1 id, $2 name, $3 visibility, $4 public_key, $5 secret_key_hash, $6 secret_key_hint, $7 salt
insert into projects (id, name, visibility, public_key, secret_key_hash, secret_key_hint, salt)
values ($1, $2, $3, $4, $5, $6, $7)
on conflict (id) do nothing
returning id, name, visibility, public_visitor_data, sql_enabled, widget_reports, allowed_origins,
          retention_days, public_key, secret_key_hint, salt, daily_salt, previous_salt, created_at, updated_at

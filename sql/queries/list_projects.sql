-- Every project with its settings. Hashes of secret keys stay in the table.
-- returns the project columns but secret_key_hash and salt_rotated_at
select id, name, visibility, public_visitor_data, sql_enabled, widget_reports, allowed_origins,
       retention_days, public_key, secret_key_hint, salt, daily_salt, previous_salt, created_at, updated_at
from projects
order by created_at, id

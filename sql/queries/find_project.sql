-- One project with its settings.
-- $1 id
select id, name, visibility, public_visitor_data, sql_enabled, widget_reports, allowed_origins,
       retention_days, public_key, secret_key_hint, salt, daily_salt, previous_salt, created_at, updated_at
from projects
where id = $1

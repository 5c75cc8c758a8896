-- Changes only the settings sent: a null parameter keeps the stored value.
-- $1 id, $2 name, $3 visibility, $4 public_visitor_data, $5 sql_enabled, $6 widget_reports,
-- $7 allowed_origins text[], $8 retention_days
update projects set
  name                = coalesce($2, name),
  visibility          = coalesce($3, visibility),
  public_visitor_data = coalesce($4, public_visitor_data),
  sql_enabled         = coalesce($5, sql_enabled),
  widget_reports      = coalesce($6, widget_reports),
  allowed_origins     = coalesce($7, allowed_origins),
  retention_days      = coalesce($8, retention_days),
  updated_at          = now()
where id = $1
returning id, name, visibility, public_visitor_data, sql_enabled, widget_reports, allowed_origins,
          retention_days, public_key, secret_key_hint, salt, created_at, updated_at

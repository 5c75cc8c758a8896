-- Changes only the settings sent: a null parameter keeps the stored value.
-- $1 id, $2 name, $3 visibility, $4 public_visitor_data, $5 sql_enabled, $6 widget_reports,
-- $7 allowed_origins text[], $8 retention_days, $9 daily_salt, $10 a new salt: turning daily_salt on
-- rotates at once (the previous salt is kept, so live sessions go on), so no id outlives the switch by a day
update projects set
  name                = coalesce($2, name),
  visibility          = coalesce($3, visibility),
  public_visitor_data = coalesce($4, public_visitor_data),
  sql_enabled         = coalesce($5, sql_enabled),
  widget_reports      = coalesce($6, widget_reports),
  allowed_origins     = coalesce($7, allowed_origins),
  retention_days      = coalesce($8, retention_days),
  daily_salt          = coalesce($9, daily_salt),
  salt                = case when $9 and not daily_salt then $10 else salt end,
  previous_salt       = case when $9 and not daily_salt then salt else previous_salt end,
  salt_rotated_at     = case when $9 and not daily_salt then now() else salt_rotated_at end,
  updated_at          = now()
where id = $1
returning id, name, visibility, public_visitor_data, sql_enabled, widget_reports, allowed_origins,
          retention_days, public_key, secret_key_hint, salt, daily_salt, previous_salt, created_at, updated_at

-- Changes to projects, API tokens and members are announced on the channel loupe_directory (NOTIFY, sent at
-- commit), so every process refreshes its project directory and forgets cached credentials at once, whoever
-- made the change: another server, the CLI, or an operator in psql. The payload names the table.
-- Columns that only record use (api_tokens.last_used_at) announce nothing.
create function loupe_directory_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('loupe_directory', tg_table_name);
  return null;
end $$;

create trigger projects_directory after insert or update or delete or truncate on projects
  for each statement execute function loupe_directory_changed();
create trigger api_tokens_directory after insert or delete or truncate
  or update of scope, project_ids, expires_at, revoked_at, token_hash on api_tokens
  for each statement execute function loupe_directory_changed();
create trigger dashboard_users_directory after insert or delete or truncate
  or update of role, project_ids on dashboard_users
  for each statement execute function loupe_directory_changed();
create trigger auth_sessions_directory after delete or truncate on auth_sessions
  for each statement execute function loupe_directory_changed();

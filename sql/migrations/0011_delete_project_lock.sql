-- The project's deletion locks the project's row before it deletes anything, so it waits for the
-- writers that hold it FOR KEY SHARE (sql/queries/lock_project.sql) and the writers that come after it
-- wait for it, instead of the two deadlocking on each other's rows. Otherwise as 0002.
create or replace function loupe_delete_project_rows(p text) returns void language plpgsql as $$
declare t record;
begin
  perform 1 from projects where id = p for update;
  for t in
    select cl.relname from pg_attribute a
    join pg_class cl on cl.oid = a.attrelid
    join pg_namespace n on n.oid = cl.relnamespace
    where a.attname = 'project_id' and not a.attisdropped and n.nspname = current_schema()
      and cl.relkind in ('r', 'p') and not cl.relispartition and cl.relname <> 'projects'
  loop
    execute format('delete from %I where project_id = $1', t.relname) using p;
  end loop;
end $$;

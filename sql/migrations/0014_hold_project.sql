-- The flush writer (src/db/wire) sends a whole flush in one write, before any answer comes back. Its hold
-- on the project's row (FOR KEY SHARE, as lock_project.sql takes it) must therefore fail the transaction
-- when the project is gone, instead of answering no row: everything sent behind it is then rolled back.
create function loupe_hold_project(p text) returns void language plpgsql as $$
begin
  perform 1 from projects where id = p for key share;
  if not found then
    raise exception 'project % not found', p using errcode = 'P0002';
  end if;
end $$;

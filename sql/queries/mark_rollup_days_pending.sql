-- Puts days of a project up for a whole rebuild of their rollups (src/db/rollup-apply.ts).
-- $1 project_id, $2 days (date[] as text[])
-- returns nothing useful
insert into rollup_pending_days (project_id, day) select $1, d from unnest($2::date[]) d
on conflict (project_id, day) do update set marked_at = excluded.marked_at

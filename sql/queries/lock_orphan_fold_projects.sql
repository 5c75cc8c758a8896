-- Holds FOR KEY SHARE, in id order, the projects that have journal rows of owners that are gone: a
-- recovery locks them before it claims those rows, as every writer of a project's rows does
-- (lock_project.sql), so it neither deadlocks with a deletion nor writes sessions or visitors for a
-- project deleted meanwhile (a deleted project is not answered: its journal rows went with it).
-- $1 caller's owner id, $2 only_process boolean, $3 grace seconds
-- returns id
select p.id from projects p
where p.id in (
  select j.project_id from fold_journal j
  where j.owner in (select loupe_gone_fold_owners($1, $2::boolean, $3::int))
)
order by p.id
for key share

-- The projects that have journal rows of owners that are gone, in id order: a recovery takes them one at a
-- time, each in a transaction of its own that locks the project first (lock_project.sql) as every writer
-- of its rows does, so one project's rows that cannot be applied never hold back another's.
-- $1 caller's owner id, $2 only_process boolean, $3 grace seconds
-- returns id
select p.id from projects p
where p.id in (
  select j.project_id from fold_journal j
  where j.owner in (select loupe_gone_fold_owners($1, $2::boolean, $3::int))
)
order by p.id

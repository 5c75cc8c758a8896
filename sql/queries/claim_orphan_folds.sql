-- Takes the journal rows of owners that are gone (loupe_gone_fold_owners, 0013) for the projects the
-- caller holds (lock_orphan_fold_projects.sql), to apply them. Deleted here and applied in the same
-- transaction, so each row is applied exactly once; the gone owners' heartbeats go with them (rows of a
-- project locked too late stay for the next recovery, which finds them by their owner's missing heartbeat).
-- $1 caller's owner id, $2 only_process boolean, $3 grace seconds, $4 project ids held text[]
-- returns id, project_id, body
with gone as (
  select loupe_gone_fold_owners($1, $2::boolean, $3::int) as owner
),
forgotten as (
  delete from fold_owners o using gone g where o.owner = g.owner
)
delete from fold_journal j using gone g
where j.owner = g.owner and j.project_id = any($4::text[])
returning j.id::text, j.project_id, j.body

-- Takes the journal rows of owners that are gone, to apply them: every owner but the caller when the
-- caller is the only process (no Redis), else owners whose heartbeat is older than the grace period (a
-- process writes its heartbeat before its first flush). Deleted here and applied in the same transaction,
-- so each row is applied exactly once; the owners' heartbeats go with them.
-- $1 caller's owner id, $2 only_process boolean, $3 grace seconds
-- returns id, project_id, body
with gone as (
  select owner from fold_owners
  where owner <> $1 and ($2::boolean or seen_at < now() - make_interval(secs => $3::int))
  union
  select distinct j.owner from fold_journal j
  where j.owner <> $1 and ($2::boolean or not exists (select 1 from fold_owners o where o.owner = j.owner))
),
forgotten as (
  delete from fold_owners o using gone g where o.owner = g.owner
)
delete from fold_journal j using gone g where j.owner = g.owner
returning j.id::text, j.project_id, j.body

-- The owners whose journal rows a recovery may take (sql/queries/claim_orphan_folds.sql): every owner but
-- the caller when the caller is the only process (no Redis), else the owners whose heartbeat is older than
-- the grace period or who wrote rows but no heartbeat (a process writes its heartbeat before its first
-- flush). One definition, for the statement that locks those rows' projects first and the one that claims them.
create function loupe_gone_fold_owners(caller text, only_process boolean, grace_seconds int) returns setof text
language sql stable as $$
  select owner from fold_owners
  where owner <> caller and (only_process or seen_at < now() - make_interval(secs => grace_seconds))
  union
  select distinct j.owner from fold_journal j
  where j.owner <> caller and (only_process or not exists (select 1 from fold_owners o where o.owner = j.owner))
$$;

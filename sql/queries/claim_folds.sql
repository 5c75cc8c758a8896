-- Takes journal rows by id to apply them from their stored events: a checkpoint does so when some of its
-- rows were applied by a recovery that took its process for dead (see delete_fold_journal.sql). Deleted
-- here and applied in the same transaction, so each row is applied exactly once.
-- $1 ids text[]
-- returns id, project_id, body
delete from fold_journal where id = any($1::text[]::bigint[]) returning id::text, project_id, body

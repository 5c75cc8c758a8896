-- A checkpoint claims the journal rows whose deltas it is about to apply, in its own transaction. A row
-- missing from the answer was applied already (by a recovery that took this owner for dead): the caller
-- then undoes the claim and claims the rest again with their bodies, to apply them from their stored
-- events as a recovery does. Deleted and applied in one transaction, each row is applied exactly once.
-- $1 ids text[], $2 with bodies (boolean: without, no body is read)
-- returns id, project_id, body (null without bodies)
delete from fold_journal where id = any($1::text[]::bigint[])
returning id::text, project_id, case when $2::boolean then body end as body

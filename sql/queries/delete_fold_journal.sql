-- A checkpoint claims the journal rows whose deltas it is about to apply, in its own transaction. A row
-- missing from the answer was applied already (by a recovery that took this owner for dead): the caller
-- then undoes the claim and applies the rest from their events (claim_folds.sql).
-- $1 ids text[]
-- returns id of every row deleted
delete from fold_journal where id = any($1::text[]::bigint[]) returning id::text

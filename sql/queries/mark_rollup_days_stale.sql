-- Marks past days of a project stale for the rollups (src/query/rollup): called in every flush
-- transaction with the distinct UTC days of its events. Append-only: no existing row is read, locked or
-- rewritten, so a flush never waits for the builder, which deletes the marks it has seen and rebuilds
-- (a mark committed after that delete survives it and makes the day pending again). Today is not
-- marked: a day gets its first rollup when it has closed (the builder waits a few minutes past
-- midnight, longer than any flush transaction, so it sees every flush stamped before midnight).
-- $1 project_id, $2 days (date[] as text[])
-- returns nothing
insert into rollup_stale_days (project_id, day)
select $1, d from unnest($2::date[]) d where d < (now() at time zone 'UTC')::date

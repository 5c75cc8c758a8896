-- Stale marks become an append-only log (see mark_rollup_days_stale.sql): a flush inserts its rows and
-- never touches a mark that is already there, so it never waits for the background builder that deletes
-- the marks it has seen (src/query/rollup/builder.ts). Several rows for one (project, day) mean the same.
alter table rollup_stale_days drop constraint rollup_stale_days_pkey;
create index rollup_stale_days_project_day on rollup_stale_days (project_id, day);

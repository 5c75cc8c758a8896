-- Holds the project's row FOR KEY SHARE until the transaction ends, as lock_project.sql does, and fails
-- the transaction (SQLSTATE P0002, no_data_found) when the project is gone: a flush sends the rest of its
-- plan behind it without waiting for its answer (src/db/flush-plan.ts).
-- $1 project_id
-- returns nothing useful (one row)
select loupe_hold_project($1)

-- Holds the project's row FOR KEY SHARE until the transaction ends, as lock_project.sql does, and fails
-- the transaction (SQLSTATE P0002, no_data_found) when the project is gone: the flush writer sends the
-- rest of the flush behind it without waiting for its answer.
-- $1 project_id
-- returns nothing useful (one row)
select loupe_hold_project($1)

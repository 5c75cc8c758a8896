-- Holds the project's row FOR KEY SHARE until the transaction ends. Every writer of a project's rows that
-- can run while the project is deleted (flush, checkpoint, rollup build) sends this first, and the
-- deletion locks the row FOR UPDATE before it deletes anything (loupe_delete_project_rows): the two then
-- take their locks in one order and cannot deadlock, and a writer that waited for a deletion finds no
-- row here and must write nothing.
-- $1 project_id
-- returns id (no row: the project is gone)
select id from projects where id = $1 for key share

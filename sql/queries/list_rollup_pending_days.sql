-- Days whose rollups a writer must rebuild (rollup_pending_days), oldest mark first.
-- $1 project_id or null for every project, $2 limit
-- returns project_id, day ('YYYY-MM-DD')
select project_id, to_char(day, 'YYYY-MM-DD') as day from rollup_pending_days
where $1::text is null or project_id = $1
order by marked_at, project_id, day
limit $2

-- Writes a job run into the log stream of the next projects in id order (kind jobs, source cron): the job
-- route sends them a chunk at a time, each chunk its own transaction.
-- Each project's log lock is taken before its line draws an id, in id order (insert_logs.sql: ids then
-- follow commit order within a project); chunks keep the lock table small however many projects there are.
-- $1 job, $2 ok, $3 summary json text, $4 the last project id of the chunk before ('' for the first), $5 chunk size
-- (in the column's own order, which its primary key serves: the caller hands back what it was given)
-- returns project_id, id, ts, level, kind, source, message, data, visitor, session: each line written, for the
-- live streams (the actors' log rings, src/routes/jobs.ts)
with chunk as materialized (
  select p.id
  from (select id from projects where id > $4 order by id limit $5) p,
    lateral (select 1 from pg_advisory_xact_lock(7370008, hashtext(p.id))) held
)
insert into logs (project_id, level, kind, source, message, data)
select id, case when $2 then 'ok' else 'error' end, 'jobs', 'cron',
       'Job ' || $1 || case when $2 then ' ran' else ' failed' end, jsonb_build_object('job', $1::text, 'summary', $3::text::jsonb)
from chunk
order by id -- the lines come back in this order: the last names the next chunk's start
returning project_id, id::text, ts, level, kind, source, message, data, visitor, session

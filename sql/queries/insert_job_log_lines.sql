-- Writes a job run into every project's log stream (kind jobs, source cron).
-- $1 job, $2 ok, $3 summary json text
-- returns project_id, id, ts, level, kind, source, message, data, visitor, session: each line written, for the
-- live streams (the actors' log rings, src/routes/jobs.ts)
insert into logs (project_id, level, kind, source, message, data)
select id, case when $2 then 'ok' else 'error' end, 'jobs', 'cron',
       'Job ' || $1 || case when $2 then ' ran' else ' failed' end, jsonb_build_object('job', $1::text, 'summary', $3::text::jsonb)
from projects
returning project_id, id::text, ts, level, kind, source, message, data, visitor, session

-- Writes a job run into every project's log stream (kind jobs, source cron).
-- $1 job, $2 ok, $3 summary json text
insert into logs (project_id, level, kind, source, message, data)
select id, case when $2 then 'ok' else 'error' end, 'jobs', 'cron',
       'Job ' || $1 || case when $2 then ' ran' else ' failed' end, jsonb_build_object('job', $1::text, 'summary', $3::text::jsonb)
from projects

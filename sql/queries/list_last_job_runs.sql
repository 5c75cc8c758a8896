-- The latest run of every job that has run.
-- returns job, started_at, finished_at, ok, summary
select distinct on (job) job, started_at, finished_at, ok, summary
from job_runs
order by job, started_at desc

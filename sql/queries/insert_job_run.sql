-- Records one run of a scheduled job.
-- $1 job, $2 started_at, $3 finished_at, $4 ok, $5 summary jsonb
insert into job_runs (job, started_at, finished_at, ok, summary) values ($1, $2, $3, $4, $5)
returning id

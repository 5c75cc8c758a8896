-- Marks every UTC day from $2 to $3 (inclusive) of a project stale for the rollups: the seed writes
-- straight to the tables, so the days it touched are rebuilt on their next read.
-- $1 project_id, $2 first day (date), $3 last day (date)
-- returns nothing
insert into rollup_stale_days (project_id, day)
select $1, d::date from generate_series($2::date, $3::date, interval '1 day') d
on conflict do nothing

-- The finished UTC days before $2 with speed samples (any day speed_buckets counts) that the `speed` job
-- has not built into speed_dims yet, of one project.
-- $1 project_id, $2 day (date, exclusive)
-- returns day
select distinct b.day from speed_buckets b
where b.project_id = $1 and b.day < $2::date
  and not exists (select 1 from speed_dims_days k where k.project_id = b.project_id and k.day = b.day)
order by 1

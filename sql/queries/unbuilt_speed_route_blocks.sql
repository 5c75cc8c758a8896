-- The aligned blocks of $3 days (starting on a day number since 1970-01-01 that $3 divides) of one
-- project that hold a day built into speed_dims, end before $2 and start inside the project's retention,
-- and are not built into speed_route_blocks yet (0060_speed_route_blocks.sql).
-- $1 project_id, $2 day (date, exclusive), $3 size (days)
-- returns start
with p as (
  select ((now() at time zone 'UTC') - make_interval(days => retention_days))::date as first
  from projects where id = $1
), starts as (
  select distinct k.day - (k.day - '1970-01-01'::date) % $3::int as start
  from speed_dims_days k where k.project_id = $1 and k.day < $2::date
)
select s.start from starts s, p
where s.start >= p.first and s.start + $3::int <= $2::date
  and not exists (select 1 from speed_route_blocks_built b where b.project_id = $1 and b.size = $3 and b.start = s.start)
order by 1

-- The `speed` job's step: sums one project's speed_dims route counts of the $2 days from $3 into
-- speed_route_blocks and marks the block built, in one statement: from its two halves when both are
-- built (each the sum of its days), else from the days; device '*' holds every class merged (0070),
-- metric 10 + m metric m's counts by coarse bucket (0071). The caller holds the project's row FOR UPDATE
-- in the same transaction; later counts of its days are added by speed_dims' triggers (0060, 0071).
-- $1 project_id, $2 size (days), $3 start (date)
-- returns rows (speed_route_blocks rows written)
with marked as (
  insert into speed_route_blocks_built (project_id, size, start) values ($1, $2, $3::date)
  on conflict do nothing returning 1
), halves as (
  select count(*) = 2 as whole from speed_route_blocks_built
  where project_id = $1 and size = $2::int / 2 and start in ($3::date, $3::date + $2::int / 2)
), src as (
  select b.environment, b.device, b.route, b.metric, b.bucket, b.n
  from speed_route_blocks b, halves h
  where h.whole and b.project_id = $1 and b.size = $2::int / 2 and b.start in ($3::date, $3::date + $2::int / 2)
  union all
  select d.environment, c.device, d.value, m.metric, m.bucket, d.n
  from speed_dims d cross join lateral (values (d.device), ('*')) as c(device)
    cross join lateral (values (d.metric, d.bucket),
      ((d.metric + 10)::smallint, loupe_speed_coarse(d.metric, d.bucket))) as m(metric, bucket), halves h
  where not h.whole and d.project_id = $1 and d.dim = 0 and d.day >= $3::date and d.day < $3::date + $2::int
), built as (
  insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
  select $1, $2, $3::date, environment, device, route, metric, bucket, sum(n)
  from src where exists (select 1 from marked) -- a block built already is left alone
  group by 4, 5, 6, 7, 8
  returning 1
)
select (select count(*) from built)::int as rows

-- The coarse rows of a block (metric 10 + m, 0071) by themselves: the primary key holds them among every
-- route's buckets (route before metric), so reading them alone scanned the whole block.
create index speed_route_blocks_coarse on speed_route_blocks (project_id, size, start, environment, device, route,
  metric, bucket) include (n) where metric >= 10;

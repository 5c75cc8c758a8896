-- The list per route with device=all (the default) summed a block's rows of every device class (mobile,
-- desktop, unknown): most of a route's buckets have a row per class. Rows of device '*' hold the classes
-- merged, so that read sums one row a (route, metric, bucket) of a block; device=mobile or desktop read
-- their own rows as before. The job builds them with the block (build_speed_route_block.sql) and the
-- triggers below add late counts to them, so '*' stays the sum of the classes.
insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
select project_id, size, start, environment, '*', route, metric, bucket, sum(n)
from speed_route_blocks where device <> '*'
group by project_id, size, start, environment, route, metric, bucket;

create or replace function loupe_speed_route_blocks_add() returns trigger language plpgsql as $$
begin
  with d as (
    select a.project_id, a.day, a.environment, a.device, a.value, a.metric, a.bucket, a.n::bigint as n
    from added a where a.dim = 0
    union all
    select o.project_id, o.day, o.environment, o.device, o.value, o.metric, o.bucket, -o.n::bigint
    from removed o where o.dim = 0
  ), hit as (
    -- The marked blocks of the days touched (few days a statement, so one lookup a day).
    select x.project_id, x.day, k.size, k.start
    from (select distinct project_id, day from d) x
    join speed_route_blocks_built k on k.project_id = x.project_id and k.start <= x.day
      and x.day < k.start + k.size
  )
  insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
  select d.project_id, h.size, h.start, d.environment, c.device, d.value, d.metric, d.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
    cross join lateral (values (d.device), ('*')) as c(device)
  group by 1, 2, 3, 4, 5, 6, 7, 8
  having sum(d.n) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8 -- one key order for every writer
  on conflict (project_id, size, start, environment, device, route, metric, bucket)
  do update set n = speed_route_blocks.n + excluded.n;
  return null;
end
$$;

create or replace function loupe_speed_route_blocks_insert() returns trigger language plpgsql as $$
begin
  with d as (
    select a.project_id, a.day, a.environment, a.device, a.value, a.metric, a.bucket, a.n::bigint as n
    from added a where a.dim = 0
  ), hit as (
    select x.project_id, x.day, k.size, k.start
    from (select distinct project_id, day from d) x
    join speed_route_blocks_built k on k.project_id = x.project_id and k.start <= x.day
      and x.day < k.start + k.size
  )
  insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
  select d.project_id, h.size, h.start, d.environment, c.device, d.value, d.metric, d.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
    cross join lateral (values (d.device), ('*')) as c(device)
  group by 1, 2, 3, 4, 5, 6, 7, 8
  having sum(d.n) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8 -- one key order for every writer
  on conflict (project_id, size, start, environment, device, route, metric, bucket)
  do update set n = speed_route_blocks.n + excluded.n;
  return null;
end
$$;

-- The speed lists per route summed ~24K speed_dims rows a day (every route's buckets of every day);
-- over a few days a route's buckets are all taken, so counts over longer blocks of days are far fewer
-- rows than their days' (16 days: ~32K rows, not ~390K). The `speed` job sums the route counts of
-- aligned blocks of 2, 4, …, 64 days (a block starts on a day number since 1970-01-01 that its size
-- divides) once every day of a block is built into speed_dims, and marks the block here; the read per
-- route covers a range's built days with the largest marked blocks and takes the rest from speed_dims.
create table speed_route_blocks (
  project_id  text not null references projects (id) on delete cascade,
  size        smallint not null, -- days
  start       date not null,
  environment text not null,
  device      text not null,
  route       text not null,
  metric      smallint not null,
  bucket      integer not null,
  n           bigint not null,
  primary key (project_id, size, start, environment, device, route, metric, bucket) include (n)
);
create table speed_route_blocks_built (
  project_id text not null references projects (id) on delete cascade,
  size       smallint not null,
  start      date not null,
  primary key (project_id, size, start)
);

-- The days a list per route takes outside blocks (the ends of its range): every route of one day, which
-- the primary key (route before day) can only find by scanning.
create index speed_dims_routes on speed_dims (project_id, day, environment, device, metric, value, bucket)
  include (n) where dim = 0;

-- Late samples of a built day reach speed_dims through the insert trigger (0058); the same counts go to
-- every marked block holding the day, so a block stays the sum of its days' rows. The job builds a block
-- and the trigger adds to it under the project's row lock (FOR UPDATE / FOR KEY SHARE), so each sample
-- is counted once. The job's own day builds find no marked block (a block is built after its days).
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
  select d.project_id, h.size, h.start, d.environment, d.device, d.value, d.metric, d.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
  group by 1, 2, 3, 4, 5, 6, 7, 8
  having sum(d.n) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8 -- one key order for every writer
  on conflict (project_id, size, start, environment, device, route, metric, bucket)
  do update set n = speed_route_blocks.n + excluded.n;
  return null;
end
$$;

-- Rows new to speed_dims: as above, without rows replaced.
create or replace function loupe_speed_route_blocks_insert() returns trigger language plpgsql as $$
begin
  with d as (
    select a.project_id, a.day, a.environment, a.device, a.value, a.metric, a.bucket, a.n::bigint as n
    from added a where a.dim = 0
  ), hit as (
    -- The marked blocks of the days touched (few days a statement, so one lookup a day).
    select x.project_id, x.day, k.size, k.start
    from (select distinct project_id, day from d) x
    join speed_route_blocks_built k on k.project_id = x.project_id and k.start <= x.day
      and x.day < k.start + k.size
  )
  insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
  select d.project_id, h.size, h.start, d.environment, d.device, d.value, d.metric, d.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
  group by 1, 2, 3, 4, 5, 6, 7, 8
  having sum(d.n) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8 -- one key order for every writer
  on conflict (project_id, size, start, environment, device, route, metric, bucket)
  do update set n = speed_route_blocks.n + excluded.n;
  return null;
end
$$;

create trigger speed_route_blocks_insert after insert on speed_dims
  referencing new table as added for each statement execute function loupe_speed_route_blocks_insert();
create trigger speed_route_blocks_update after update on speed_dims
  referencing old table as removed new table as added for each statement execute function loupe_speed_route_blocks_add();

-- The list per route still summed ~30K rows a block (every route's buckets of each metric) to find the
-- bucket holding each route's rank. A coarse bucket is 16 buckets in a row, never across a threshold
-- (good: buckets ≤ 0, the zero bucket its own; between the thresholds: 1 000 000 + …; poor: 2 000 000 + …),
-- so ratings and shares stay exact from coarse counts. Each block also holds metric m's counts by coarse
-- bucket as rows of metric 10 + m: the list finds each route's coarse bucket from those (a sixteenth of
-- the rows), then reads only that coarse bucket's buckets by index ranges (src/query/speed/histogram.ts).
-- Days count as blocks of one day, so a range's whole days are all blocks.
create function loupe_speed_coarse(metric smallint, b integer) returns integer
language sql immutable parallel safe as $$
  select case
    when b <= 0 then floor(b / 16.0)::int
    when b <= n then 1000000 + (b - 1) / 16
    else 2000000 + (b - n - 1) / 16
  end
  from (select ceil(ln((array[4000, 500, 0.25, 3000, 1800]::float8[])[metric + 1]
    / (array[2500, 200, 0.1, 1800, 800]::float8[])[metric + 1]) / ln(201::float8 / 199))::int as n) as x
$$;
-- The first and last bucket of a coarse bucket.
create function loupe_speed_coarse_lo(metric smallint, c integer) returns integer
language sql immutable parallel safe as $$
  select case when c <= 0 then 16 * c when c < 2000000 then 1 + 16 * (c - 1000000)
    else n + 1 + 16 * (c - 2000000) end
  from (select ceil(ln((array[4000, 500, 0.25, 3000, 1800]::float8[])[metric + 1]
    / (array[2500, 200, 0.1, 1800, 800]::float8[])[metric + 1]) / ln(201::float8 / 199))::int as n) as x
$$;
create function loupe_speed_coarse_hi(metric smallint, c integer) returns integer
language sql immutable parallel safe as $$
  select case when c <= 0 then least(0, 16 * c + 15) when c < 2000000 then least(n, 16 * (c - 1000000) + 16)
    else n + 16 * (c - 2000000) + 16 end
  from (select ceil(ln((array[4000, 500, 0.25, 3000, 1800]::float8[])[metric + 1]
    / (array[2500, 200, 0.1, 1800, 800]::float8[])[metric + 1]) / ln(201::float8 / 199))::int as n) as x
$$;

insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
select project_id, size, start, environment, device, route, metric + 10, loupe_speed_coarse(metric, bucket), sum(n)
from speed_route_blocks where metric < 10
group by project_id, size, start, environment, device, route, metric, loupe_speed_coarse(metric, bucket);

-- Late counts reach every marked block holding their day, for their class and '*' (0070), by bucket and
-- by coarse bucket.
create or replace function loupe_speed_route_blocks_add() returns trigger language plpgsql as $$
begin
  with d as (
    select a.project_id, a.day, a.environment, a.device, a.value, a.metric, a.bucket, a.n::bigint as n
    from added a where a.dim = 0
    union all
    select o.project_id, o.day, o.environment, o.device, o.value, o.metric, o.bucket, -o.n::bigint
    from removed o where o.dim = 0
  ), hit as (
    select x.project_id, x.day, k.size, k.start
    from (select distinct project_id, day from d) x
    join speed_route_blocks_built k on k.project_id = x.project_id and k.start <= x.day
      and x.day < k.start + k.size
  )
  insert into speed_route_blocks (project_id, size, start, environment, device, route, metric, bucket, n)
  select d.project_id, h.size, h.start, d.environment, c.device, d.value, m.metric, m.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
    cross join lateral (values (d.device), ('*')) as c(device)
    cross join lateral (values (d.metric, d.bucket),
      ((d.metric + 10)::smallint, loupe_speed_coarse(d.metric, d.bucket))) as m(metric, bucket)
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
  select d.project_id, h.size, h.start, d.environment, c.device, d.value, m.metric, m.bucket, sum(d.n)
  from d join hit h on h.project_id = d.project_id and h.day = d.day
    cross join lateral (values (d.device), ('*')) as c(device)
    cross join lateral (values (d.metric, d.bucket),
      ((d.metric + 10)::smallint, loupe_speed_coarse(d.metric, d.bucket))) as m(metric, bucket)
  group by 1, 2, 3, 4, 5, 6, 7, 8
  having sum(d.n) <> 0
  order by 1, 2, 3, 4, 5, 6, 7, 8 -- one key order for every writer
  on conflict (project_id, size, start, environment, device, route, metric, bucket)
  do update set n = speed_route_blocks.n + excluded.n;
  return null;
end
$$;

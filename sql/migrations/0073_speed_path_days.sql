-- Per-day sample counts of every path, by environment, device class and metric (human samples only, raw and
-- folded alike), kept by the insert trigger on speed_samples like speed_buckets: the list per path orders
-- its paths and cuts by minShare from these small rows (one a path, metric, environment and device class a
-- day) instead of counting every raw sample of the range; it then reads the page's paths only
-- (src/query/speed/paths.ts). The job's folding leaves them alone; retention drops their days with the rest.
create table speed_path_days (
  project_id  text not null references projects (id) on delete cascade,
  day         date not null,
  environment text not null,
  device      text not null, -- 'mobile' (phones and tablets), 'desktop' or '' (unknown)
  path        text,
  metric      smallint not null,
  n           integer not null
);
-- A null path is a path too (the raw list groups it): one row, not one a sample.
create unique index speed_path_days_key on speed_path_days (project_id, day, environment, device, path, metric)
  include (n) nulls not distinct;

create function loupe_speed_device_class(device text) returns text language sql immutable parallel safe as $$
  select case when device in ('mobile', 'tablet') then 'mobile' when device = 'desktop' then 'desktop' else '' end
$$;

-- What is already stored: human raw samples and folded days.
insert into speed_path_days (project_id, day, environment, device, path, metric, n)
select project_id, day, environment, device, path, metric, sum(n)
from (
  select s.project_id, (s.ts at time zone 'UTC')::date as day, s.environment, loupe_speed_device_class(s.device) as device,
    s.path, m.metric, count(*) as n
  from speed_samples s cross join lateral (values (0::smallint, s.lcp), (1::smallint, s.inp), (2::smallint, s.cls),
    (3::smallint, s.fcp), (4::smallint, s.ttfb)) as m(metric, value)
  where m.value is not null and not (s.bot_score >= 50 or s.is_internal or s.is_localhost)
  group by 1, 2, 3, 4, 5, 6
  union all
  select project_id, day, environment, loupe_speed_device_class(device), path, metric, sum(n)
  from speed_days where not bot group by 1, 2, 3, 4, 5, 6
) as s
where exists (select 1 from projects p where p.id = s.project_id)
group by 1, 2, 3, 4, 5, 6;

create or replace function loupe_speed_buckets_add() returns trigger language plpgsql as $$
begin
  with flagged as (
    -- The samples of internal visitors and localhost pages (few), from their events.
    select a.project_id, a.ts, a.event_id, e.is_internal, e.is_localhost
    from added a cross join lateral (
      select ev.is_internal, ev.is_localhost from events ev
      where ev.project_id = a.project_id and ev.ts = a.ts and ev.id = a.event_id and (ev.is_internal or ev.is_localhost)
      limit 1) as e
  ), marked as (
    update speed_samples s set is_internal = f.is_internal, is_localhost = f.is_localhost
    from flagged f where s.project_id = f.project_id and s.ts = f.ts and s.event_id = f.event_id
    returning 1
  ), v as (
    select a.project_id, (a.ts at time zone 'UTC')::date as day, a.environment,
      a.bot_score >= 50 or f.event_id is not null as bot, coalesce(a.device, '') as device, a.route, a.path, a.country,
      a.element, m.metric, loupe_speed_bucket_of(m.metric, m.value) as bucket
    from added a
      left join flagged f on f.project_id = a.project_id and f.ts = a.ts and f.event_id = a.event_id
      cross join lateral (values (0::smallint, a.lcp), (1::smallint, a.inp), (2::smallint, a.cls),
        (3::smallint, a.fcp), (4::smallint, a.ttfb)) as m(metric, value)
    where m.value is not null and exists (select 1 from projects p where p.id = a.project_id) -- a deleted one keeps none
  ), b as (
    insert into speed_buckets (project_id, day, environment, bot, device, metric, bucket, n)
    select project_id, day, environment, bot, device, metric, bucket, count(*)
    from v group by 1, 2, 3, 4, 5, 6, 7
    order by 1, 2, 3, 4, 5, 6, 7 -- one key order for every writer
    on conflict (project_id, day, environment, bot, device, metric, bucket) do update set n = speed_buckets.n + excluded.n
    returning 1
  ), pd as (
    insert into speed_path_days (project_id, day, environment, device, path, metric, n)
    select project_id, day, environment, loupe_speed_device_class(device), path, metric, count(*)
    from v where not bot group by 1, 2, 3, 4, 5, 6
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, day, environment, device, path, metric) do update set n = speed_path_days.n + excluded.n
    returning 1
  )
  -- Late samples of days the job has built (the job holds the project's row FOR UPDATE while it builds a
  -- day, and every flush holds it FOR KEY SHARE: a sample is counted by exactly one of the two).
  insert into speed_dims (project_id, dim, value, day, environment, device, metric, bucket, n)
  select v.project_id, d.dim, d.value, v.day, v.environment,
    case when v.device in ('mobile', 'tablet') then 'mobile' when v.device = 'desktop' then 'desktop' else '' end,
    v.metric, v.bucket, count(*)
  from v cross join lateral (values (0::smallint, v.route), (1::smallint, v.country),
    (2::smallint, case when v.metric <= 2 then v.element end)) as d(dim, value)
  where not v.bot and d.value is not null
    and exists (select 1 from speed_dims_days k where k.project_id = v.project_id and k.day = v.day)
  group by 1, 2, 3, 4, 5, 6, 7, 8
  order by 1, 2, 3, 4, 5, 6, 7, 8
  on conflict (project_id, dim, value, day, environment, device, metric, bucket) do update set n = speed_dims.n + excluded.n;
  return null;
end
$$;

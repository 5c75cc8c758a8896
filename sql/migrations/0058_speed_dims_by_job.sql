-- speed_dims (0056) kept by the insert trigger cost every flushed sample three upserts into a large
-- index. The `speed` job builds a day's rows instead, once the UTC day is over (build_speed_dims_day.sql),
-- and marks the day here; the trigger adds to speed_dims only samples of marked days (late ones). Reads
-- take marked days from speed_dims and the other days from the raw samples.
create table speed_dims_days (
  project_id text not null references projects (id) on delete cascade,
  day        date not null,
  primary key (project_id, day)
);

-- What 0056 counted is complete for every day before today: marked; today's rows go (the job builds it).
insert into speed_dims_days (project_id, day)
select distinct project_id, day from speed_buckets where day < (now() at time zone 'UTC')::date;
delete from speed_dims where day >= (now() at time zone 'UTC')::date;

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
      a.bot_score >= 50 or f.event_id is not null as bot, coalesce(a.device, '') as device, a.route, a.country,
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

-- Per-day bucket counts of human speed samples by one dimension at a time (route, country, and the
-- element of LCP, INP and CLS), beside speed_buckets (0024): a read filtered by one route or country,
-- and the elements list, sum these rows for the whole days of its range instead of reading every raw
-- sample, then read the exact value from the raw samples of the one bucket holding the rank
-- (src/query/speed/histogram.ts). Kept by the same insert trigger, raw and folded alike (the `speed`
-- job leaves them alone), so a day's counts are its raw plus its folded samples. Only human traffic
-- (the only traffic the speed reads answer); device is the class the reads select (phones and tablets
-- are 'mobile', '' when unknown).
create table speed_dims (
  project_id  text not null references projects (id) on delete cascade,
  dim         smallint not null, -- 0 route, 1 country, 2 element
  value       text not null,
  day         date not null,
  environment text not null,
  device      text not null,
  metric      smallint not null,
  bucket      integer not null,
  n           integer not null,
  -- n rides in the keys' indexes: a read sums them without visiting the rows, scattered as the trigger
  -- adds them day after day.
  primary key (project_id, dim, value, day, environment, device, metric, bucket) include (n)
);
-- The elements list reads every element of one metric over a range's days.
create index speed_dims_elements on speed_dims (project_id, metric, day, environment, device, value, bucket)
  include (n) where dim = 2;

-- The raw part of a filtered read (the part-days at the range's ends) by route, path and country.
create index speed_samples_route_ts on speed_samples (project_id, route, ts);
create index speed_samples_path_ts on speed_samples (project_id, path, ts);
create index speed_samples_country_ts on speed_samples (project_id, country, ts);

-- One metric's raw samples by time (hourly series, the part-days of one-metric reads), and the exact
-- value inside one bucket (the samples of a value range), both answered from the index alone.
drop index speed_samples_lcp, speed_samples_inp, speed_samples_cls, speed_samples_fcp, speed_samples_ttfb;
create index speed_samples_lcp on speed_samples (project_id, lcp)
  include (ts, environment, bot_score, is_internal, is_localhost, device, route, path, country, element)
  where lcp is not null;
create index speed_samples_inp on speed_samples (project_id, inp)
  include (ts, environment, bot_score, is_internal, is_localhost, device, route, path, country, element)
  where inp is not null;
create index speed_samples_cls on speed_samples (project_id, cls)
  include (ts, environment, bot_score, is_internal, is_localhost, device, route, path, country, element)
  where cls is not null;
create index speed_samples_fcp on speed_samples (project_id, fcp)
  include (ts, environment, bot_score, is_internal, is_localhost, device, route, path, country, element)
  where fcp is not null;
create index speed_samples_ttfb on speed_samples (project_id, ttfb)
  include (ts, environment, bot_score, is_internal, is_localhost, device, route, path, country, element)
  where ttfb is not null;
create index speed_samples_lcp_ts on speed_samples (project_id, ts)
  include (lcp, environment, bot_score, is_internal, is_localhost, device, element) where lcp is not null;
create index speed_samples_inp_ts on speed_samples (project_id, ts)
  include (inp, environment, bot_score, is_internal, is_localhost, device, element) where inp is not null;
create index speed_samples_cls_ts on speed_samples (project_id, ts)
  include (cls, environment, bot_score, is_internal, is_localhost, device, element) where cls is not null;
create index speed_samples_fcp_ts on speed_samples (project_id, ts)
  include (fcp, environment, bot_score, is_internal, is_localhost, device) where fcp is not null;
create index speed_samples_ttfb_ts on speed_samples (project_id, ts)
  include (ttfb, environment, bot_score, is_internal, is_localhost, device) where ttfb is not null;
-- Index-only reads need the visibility map of recent rows: vacuum after 1% new rows, not 20%.
alter table speed_samples set (autovacuum_vacuum_insert_scale_factor = 0.01);

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
  insert into speed_dims (project_id, dim, value, day, environment, device, metric, bucket, n)
  select v.project_id, d.dim, d.value, v.day, v.environment,
    case when v.device in ('mobile', 'tablet') then 'mobile' when v.device = 'desktop' then 'desktop' else '' end,
    v.metric, v.bucket, count(*)
  from v cross join lateral (values (0::smallint, v.route), (1::smallint, v.country),
    (2::smallint, case when v.metric <= 2 then v.element end)) as d(dim, value)
  where not v.bot and d.value is not null
  group by 1, 2, 3, 4, 5, 6, 7, 8
  order by 1, 2, 3, 4, 5, 6, 7, 8
  on conflict (project_id, dim, value, day, environment, device, metric, bucket) do update set n = speed_dims.n + excluded.n;
  return null;
end
$$;

-- What is stored already: raw samples and folded days.
insert into speed_dims (project_id, dim, value, day, environment, device, metric, bucket, n)
select s.project_id, d.dim, d.value, s.day, s.environment,
  case when s.device in ('mobile', 'tablet') then 'mobile' when s.device = 'desktop' then 'desktop' else '' end,
  s.metric, s.bucket, sum(s.n)
from (
  select project_id, (ts at time zone 'UTC')::date as day, environment, device, route, country,
    case when m.metric <= 2 then element end as element, m.metric, loupe_speed_bucket_of(m.metric, m.value) as bucket,
    1 as n
  from speed_samples cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls),
    (3::smallint, fcp), (4::smallint, ttfb)) as m(metric, value)
  where m.value is not null and bot_score < 50 and not is_internal and not is_localhost
  union all
  select project_id, day, environment, device, route, country, element, metric, bucket, n from speed_days where not bot
) as s cross join lateral (values (0::smallint, s.route), (1::smallint, s.country), (2::smallint, s.element)) as d(dim, value)
where d.value is not null and exists (select 1 from projects p where p.id = s.project_id)
group by 1, 2, 3, 4, 5, 6, 7, 8;

-- Per-day bucket counts of every speed sample, by the few dimensions the unfiltered reads select on
-- (environment, bot, device), kept by a trigger on every insert into speed_samples (flush, seed, COPY) and
-- left alone by the `speed` job's folding: a 30-day read sums ~30 days of these small rows to find the
-- bucket holding the requested rank, then reads the exact value from the raw samples of that one bucket
-- through the per-metric indexes below (src/query/speed/histogram.ts). Buckets as in 0023.

-- The bucket parameters, once: web-vitals thresholds by metric (0 lcp, 1 inp, 2 cls, 3 fcp, 4 ttfb) and
-- gamma = (1 + 0.005) / (1 - 0.005); src/query/speed/buckets.ts holds the same numbers (a test compares).
create function loupe_speed_bucket_of(metric smallint, v float8) returns integer
language sql immutable parallel safe as $$
  select loupe_speed_bucket(v, (array[2500, 200, 0.1, 1800, 800]::float8[])[metric + 1],
    (array[4000, 500, 0.25, 3000, 1800]::float8[])[metric + 1], 201::float8 / 199)
$$;
create function loupe_speed_value_of(metric smallint, b integer) returns float8
language sql immutable parallel safe as $$
  select loupe_speed_bucket_value(b, (array[2500, 200, 0.1, 1800, 800]::float8[])[metric + 1],
    (array[4000, 500, 0.25, 3000, 1800]::float8[])[metric + 1], 201::float8 / 199)
$$;

create table speed_buckets (
  project_id  text not null references projects (id) on delete cascade,
  day         date not null,
  environment text not null,
  bot         boolean not null,
  device      text not null, -- '' when unknown
  metric      smallint not null,
  bucket      integer not null,
  n           integer not null,
  primary key (project_id, day, environment, bot, device, metric, bucket)
);

create function loupe_speed_buckets_add() returns trigger language plpgsql as $$
begin
  insert into speed_buckets (project_id, day, environment, bot, device, metric, bucket, n)
  select project_id, (ts at time zone 'UTC')::date, environment, bot_score >= 50, coalesce(device, ''), m.metric,
    loupe_speed_bucket_of(m.metric, m.value), count(*)
  from added cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls), (3::smallint, fcp),
    (4::smallint, ttfb)) as m(metric, value)
  where m.value is not null and exists (select 1 from projects p where p.id = added.project_id) -- a deleted one keeps none
  group by 1, 2, 3, 4, 5, 6, 7
  order by 1, 2, 3, 4, 5, 6, 7 -- one key order for every writer
  on conflict (project_id, day, environment, bot, device, metric, bucket) do update set n = speed_buckets.n + excluded.n;
  return null;
end
$$;
create trigger speed_samples_buckets after insert on speed_samples referencing new table as added
  for each statement execute function loupe_speed_buckets_add();

-- What is already stored: raw samples and folded days.
insert into speed_buckets (project_id, day, environment, bot, device, metric, bucket, n)
select project_id, day, environment, bot, device, metric, bucket, sum(n)
from (
  select project_id, (ts at time zone 'UTC')::date as day, environment, bot_score >= 50 as bot,
    coalesce(device, '') as device, m.metric, loupe_speed_bucket_of(m.metric, m.value) as bucket, 1 as n
  from speed_samples cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls),
    (3::smallint, fcp), (4::smallint, ttfb)) as m(metric, value)
  where m.value is not null
  union all
  select project_id, day, environment, bot, coalesce(device, ''), metric, bucket, n from speed_days
) as s
where exists (select 1 from projects p where p.id = s.project_id)
group by 1, 2, 3, 4, 5, 6, 7;

-- The exact value inside one bucket: the raw samples of a project in a value range.
create index speed_samples_lcp on speed_samples (project_id, lcp) where lcp is not null;
create index speed_samples_inp on speed_samples (project_id, inp) where inp is not null;
create index speed_samples_cls on speed_samples (project_id, cls) where cls is not null;
create index speed_samples_fcp on speed_samples (project_id, fcp) where fcp is not null;
create index speed_samples_ttfb on speed_samples (project_id, ttfb) where ttfb is not null;

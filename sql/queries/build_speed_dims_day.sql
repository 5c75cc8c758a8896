-- The `speed` job's step: builds one project's speed_dims rows of one finished UTC day from its raw
-- samples and folded rows, and marks the day built, in one statement. The caller holds the project's row
-- FOR UPDATE in the same transaction, so no flush adds samples of the day meanwhile; later ones are
-- added by the insert trigger (0058_speed_dims_by_job.sql).
-- $1 project_id, $2 day (date)
-- returns rows (speed_dims rows written)
with marked as (
  insert into speed_dims_days (project_id, day) values ($1, $2::date) on conflict do nothing returning 1
), s as (
  select environment, device, route, country, case when m.metric <= 2 then element end as element, m.metric,
    loupe_speed_bucket_of(m.metric, m.value) as bucket, 1 as n
  from speed_samples cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls),
    (3::smallint, fcp), (4::smallint, ttfb)) as m(metric, value)
  where project_id = $1 and ts >= $2::date::timestamp at time zone 'UTC'
    and ts < ($2::date + 1)::timestamp at time zone 'UTC'
    and m.value is not null and bot_score < 50 and not is_internal and not is_localhost
  union all
  select environment, device, route, country, element, metric, bucket, n
  from speed_days where project_id = $1 and day = $2::date and not bot
), built as (
  insert into speed_dims (project_id, dim, value, day, environment, device, metric, bucket, n)
  select $1, d.dim, d.value, $2::date, s.environment,
    case when s.device in ('mobile', 'tablet') then 'mobile' when s.device = 'desktop' then 'desktop' else '' end,
    s.metric, s.bucket, sum(s.n)
  from s cross join lateral (values (0::smallint, s.route), (1::smallint, s.country), (2::smallint, s.element))
    as d(dim, value)
  where d.value is not null and exists (select 1 from marked) -- a day built already is left alone
  group by 2, 3, 5, 6, 7, 8
  returning 1
)
select (select count(*) from built)::int as rows

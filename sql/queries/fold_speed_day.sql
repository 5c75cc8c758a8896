-- The `speed` job's step: folds one project's raw samples of [$2, $3) (inside one UTC day) into the
-- per-day histograms of 0023_speed_days.sql and deletes them, in one statement, so a read sees each
-- sample either raw or folded. Elements are kept for the metrics the SDK names one for (lcp, inp, cls).
-- `bot` is "not human traffic": a bot score of 50 or more, an internal visitor or a localhost page.
-- $1 project_id, $2 from, $3 to
-- returns samples (raw rows folded), rows (histogram rows written)
with moved as (
  delete from speed_samples where project_id = $1 and ts >= $2 and ts < $3 returning *
), folded as (
  insert into speed_days (project_id, day, environment, bot, device, country, route, path, element, metric, bucket, n)
  select project_id, (ts at time zone 'UTC')::date, environment, bot_score >= 50 or is_internal or is_localhost,
    device, country, route, path,
    case when m.metric <= 2 then element end, m.metric,
    loupe_speed_bucket_of(m.metric, m.value), count(*)
  from moved cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls), (3::smallint, fcp),
    (4::smallint, ttfb)) as m(metric, value)
  where m.value is not null
  group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
  returning 1
)
select (select count(*) from moved)::int as samples, (select count(*) from folded)::int as rows

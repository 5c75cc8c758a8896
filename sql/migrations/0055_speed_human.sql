-- Human traffic for the speed reads as for every other read (docs/metrics.md): a sample of an internal
-- visitor or of a localhost page is not human. speed_samples learns both from the sample's event, which
-- the flush writes before the sample in the same transaction, so the flush's statement stays as it is:
-- the insert trigger of 0024 looks the new samples' events up (rare flagged ones get their columns set)
-- and counts them with the bots in speed_buckets, whose `bot` now means "not human traffic".
alter table speed_samples
  add column is_internal boolean not null default false,
  add column is_localhost boolean not null default false;

-- What is stored already: the samples whose events are flagged.
update speed_samples s set is_internal = e.is_internal, is_localhost = e.is_localhost
from events e
where e.project_id = s.project_id and e.ts = s.ts and e.id = s.event_id and (e.is_internal or e.is_localhost);
update speed_buckets b set n = b.n - x.n
from (
  select project_id, (ts at time zone 'UTC')::date as day, environment, coalesce(device, '') as device, m.metric,
    loupe_speed_bucket_of(m.metric, m.value) as bucket, count(*)::int as n
  from speed_samples cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls),
    (3::smallint, fcp), (4::smallint, ttfb)) as m(metric, value)
  where m.value is not null and bot_score < 50 and (is_internal or is_localhost)
  group by 1, 2, 3, 4, 5, 6
) as x
where (b.project_id, b.day, b.environment, b.bot, b.device, b.metric, b.bucket)
  = (x.project_id, x.day, x.environment, false, x.device, x.metric, x.bucket);
insert into speed_buckets (project_id, day, environment, bot, device, metric, bucket, n)
select project_id, (ts at time zone 'UTC')::date, environment, true, coalesce(device, ''), m.metric,
  loupe_speed_bucket_of(m.metric, m.value), count(*)
from speed_samples cross join lateral (values (0::smallint, lcp), (1::smallint, inp), (2::smallint, cls),
  (3::smallint, fcp), (4::smallint, ttfb)) as m(metric, value)
where m.value is not null and bot_score < 50 and (is_internal or is_localhost)
group by 1, 2, 3, 4, 5, 6, 7
on conflict (project_id, day, environment, bot, device, metric, bucket) do update set n = speed_buckets.n + excluded.n;
delete from speed_buckets where n = 0;

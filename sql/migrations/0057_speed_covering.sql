-- The unfiltered speed reads sum ~30 days of speed_buckets rows: with n in the key's index they read the
-- index alone. A page filter's read (`filter[page]`) reads its samples from the path index alone.
alter table speed_buckets drop constraint speed_buckets_pkey,
  add primary key (project_id, day, environment, bot, device, metric, bucket) include (n);
drop index speed_samples_path_ts;
create index speed_samples_path_ts on speed_samples (project_id, path, ts)
  include (route, country, environment, bot_score, is_internal, is_localhost, device, element, lcp, inp, cls, fcp, ttfb);

-- Drops each project's events, sessions, speed samples and de-duplication keys past its retentionDays.
-- returns the numbers of rows deleted per table
with cutoff as (select id, now() - make_interval(days => retention_days) as before from projects),
  e as (delete from events ev using cutoff c where ev.project_id = c.id and ev.ts < c.before returning 1),
  s as (delete from sessions se using cutoff c where se.project_id = c.id and se.last_activity < c.before returning 1),
  p as (delete from speed_samples sp using cutoff c where sp.project_id = c.id and sp.ts < c.before returning 1),
  d as (delete from ingest_dedup dd using cutoff c where dd.project_id = c.id and dd.ts < c.before returning 1)
select (select count(*) from e)::int as events, (select count(*) from s)::int as sessions,
       (select count(*) from p)::int as speed_samples, (select count(*) from d)::int as dedup_keys

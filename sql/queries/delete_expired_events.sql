-- Drops one project's events, sessions, speed samples, folded days and day counts (speed keeps whole
-- UTC days: the ones before the cutoff's day go) and de-duplication keys past its retentionDays; the UTC
-- days that lost events are marked stale for the rollups. One project a statement, so one that fails never
-- keeps the others' old rows (src/jobs/registry.ts).
-- $1 project_id
-- returns the numbers of rows deleted per table
with cutoff as (select id, now() - make_interval(days => retention_days) as before from projects where id = $1),
  e as (delete from events ev using cutoff c where ev.project_id = c.id and ev.ts < c.before
        returning ev.project_id, (ev.ts at time zone 'UTC')::date as day),
  s as (delete from sessions se using cutoff c where se.project_id = c.id and se.last_activity < c.before returning 1),
  p as (delete from speed_samples sp using cutoff c
        where sp.project_id = c.id and sp.ts < (c.before at time zone 'UTC')::date::timestamp at time zone 'UTC' returning 1),
  f as (delete from speed_days sd using cutoff c
        where sd.project_id = c.id and sd.day < (c.before at time zone 'UTC')::date returning 1),
  pd as (delete from speed_path_days sp using cutoff c
        where sp.project_id = c.id and sp.day < (c.before at time zone 'UTC')::date returning 1),
  b as (delete from speed_buckets sb using cutoff c
        where sb.project_id = c.id and sb.day < (c.before at time zone 'UTC')::date returning 1),
  x as (delete from speed_dims sx using cutoff c
        where sx.project_id = c.id and sx.day < (c.before at time zone 'UTC')::date returning 1),
  k as (delete from speed_dims_days sk using cutoff c
        where sk.project_id = c.id and sk.day < (c.before at time zone 'UTC')::date returning 1),
  r as (delete from speed_route_blocks sr using cutoff c
        where sr.project_id = c.id and sr.start < (c.before at time zone 'UTC')::date returning 1),
  rk as (delete from speed_route_blocks_built sb using cutoff c
        where sb.project_id = c.id and sb.start < (c.before at time zone 'UTC')::date returning 1),
  d as (delete from ingest_dedup dd using cutoff c where dd.project_id = c.id and dd.ts < c.before returning 1),
  m as (insert into rollup_stale_days (project_id, day) select distinct project_id, day from e)
select (select count(*) from e)::int as events, (select count(*) from s)::int as sessions,
       (select count(*) from p)::int as speed_samples, (select count(*) from f)::int as speed_days,
       (select count(*) from d)::int as dedup_keys

-- Adds to a project's hourly ingest counters (the overview's ingest.last24h); nothing once the project
-- is deleted (its row held as sql/queries/lock_project.sql explains).
-- $1 project_id, $2 hour, $3 accepted, $4 duplicates, $5 rejected, $6 rate_limited
insert into ingest_counters as c (project_id, hour, accepted, duplicates, rejected, rate_limited)
select id, $2, $3, $4, $5, $6 from projects where id = $1 for key share
on conflict (project_id, hour) do update set
  accepted = c.accepted + excluded.accepted, duplicates = c.duplicates + excluded.duplicates,
  rejected = c.rejected + excluded.rejected, rate_limited = c.rate_limited + excluded.rate_limited

-- Adds one flush's new error events to their issues: counts, first/last seen and releases, and the
-- status a new occurrence leads to, as decided by the issue-lifecycle machine (never a rule of its own).
-- The releases follow event time, not the order flushes arrive in: an occurrence sent late (an SDK's
-- offline queue, a server SDK's retry) older than the first one stored brings the first release, and one
-- older than the latest does not replace the last release (a null release keeps what is there).
-- $1 project_id, $2 rows json (array of IssueDelta, sorted by id)
-- $3 occurrence rules json: for each issue status, what a new occurrence makes of it:
--    {"<status>": {"status", "regression" (true/false, or null to keep), "clearResolvedAt"}}
insert into issues as i (project_id, id, fingerprint, title, culprit, type, level, count, first_seen, last_seen,
  first_release, last_release)
select $1, id, id, title, culprit, type, level, count, first_seen, last_seen, first_release, last_release
from json_to_recordset($2::text::json) as r(
  id text, title text, culprit text, type text, level text, count int,
  first_seen timestamptz, last_seen timestamptz, first_release text, last_release text)
on conflict (project_id, id) do update set
  count         = i.count + excluded.count,
  first_seen    = least(i.first_seen, excluded.first_seen),
  last_seen     = greatest(i.last_seen, excluded.last_seen),
  first_release = case when excluded.first_seen < i.first_seen then coalesce(excluded.first_release, i.first_release)
                  else coalesce(i.first_release, excluded.first_release) end,
  last_release  = case when excluded.last_seen >= i.last_seen then coalesce(excluded.last_release, i.last_release)
                  else coalesce(i.last_release, excluded.last_release) end,
  status        = $3::text::jsonb -> i.status ->> 'status',
  is_regression = coalesce(($3::text::jsonb -> i.status ->> 'regression')::boolean, i.is_regression),
  resolved_at   = case when ($3::text::jsonb -> i.status ->> 'clearResolvedAt')::boolean then null else i.resolved_at end

-- Adds one flush's new error events to their issues: counts, first/last seen and releases, and the
-- status a new occurrence leads to, as decided by the issue-lifecycle machine (never a rule of its own).
-- The releases follow event time, not the order flushes arrive in: the first and last release are those of
-- the earliest and latest occurrence that carried one (first_release_at, last_release_at), so an occurrence
-- sent late (an SDK's offline queue, a server SDK's retry) brings the first release when it is older, and
-- one without a release changes neither.
-- $1 project_id, $2 rows json (array of IssueDelta, sorted by id)
-- $3 occurrence rules json: for each issue status, what a new occurrence makes of it:
--    {"<status>": {"status", "regression" (true/false, or null to keep), "clearResolvedAt"}}
insert into issues as i (project_id, id, fingerprint, title, culprit, type, level, count, first_seen, last_seen,
  first_release, first_release_at, last_release, last_release_at)
select $1, id, id, title, culprit, type, level, count, first_seen, last_seen, first_release, first_release_at,
  last_release, last_release_at
from json_to_recordset($2::text::json) as r(
  id text, title text, culprit text, type text, level text, count int, first_seen timestamptz, last_seen timestamptz,
  first_release text, first_release_at timestamptz, last_release text, last_release_at timestamptz)
on conflict (project_id, id) do update set
  count         = i.count + excluded.count,
  first_seen    = least(i.first_seen, excluded.first_seen),
  last_seen     = greatest(i.last_seen, excluded.last_seen),
  first_release    = case when excluded.first_release_at < coalesce(i.first_release_at, 'infinity')
                     then excluded.first_release else i.first_release end,
  first_release_at = least(i.first_release_at, excluded.first_release_at),
  last_release     = case when excluded.last_release_at >= coalesce(i.last_release_at, '-infinity')
                     then excluded.last_release else i.last_release end,
  last_release_at  = greatest(i.last_release_at, excluded.last_release_at),
  status        = $3::text::jsonb -> i.status ->> 'status',
  is_regression = coalesce(($3::text::jsonb -> i.status ->> 'regression')::boolean, i.is_regression),
  resolved_at   = case when ($3::text::jsonb -> i.status ->> 'clearResolvedAt')::boolean then null else i.resolved_at end

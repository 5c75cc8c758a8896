-- A page of a project's issues, most recently seen first, with distinct visitors per issue.
-- $1 project_id, $2 status or null (all), $3 cursor last_seen or null, $4 cursor id, $5 limit
-- returns the issue columns and visitors
select i.id, i.title, i.culprit, i.level, i.status, i.is_regression, i.count, i.first_seen, i.last_seen,
       i.first_release, i.last_release, i.resolved_at,
       (select count(distinct e.visitor_id)::int from events e where e.project_id = i.project_id and e.issue_id = i.id) as visitors
from issues i
where i.project_id = $1
  and ($2::text is null or i.status = $2)
  and ($3::timestamptz is null or (i.last_seen, i.id) < ($3::timestamptz, $4::text))
order by i.last_seen desc, i.id desc
limit $5

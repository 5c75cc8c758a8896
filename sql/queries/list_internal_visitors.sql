-- The visitors marked internal (by an admin, or by a member's session cookie on one of their events), the
-- most recently seen first, at most $2: a project actor that starts stores their later events as internal.
-- The partial index visitors_internal finds them; the few found are sorted.
-- $1 project_id, $2 at most
-- returns id
select id
from visitors
where project_id = $1 and is_internal
order by last_seen desc
limit $2

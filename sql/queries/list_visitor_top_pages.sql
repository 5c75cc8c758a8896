-- A visitor's most viewed pages, through their sessions (events carry no per-visitor index).
-- $1 project_id, $2 session ids text[]
-- returns value, pageviews
select path as value, count(*)::int as pageviews
from events where project_id = $1 and session_id = any($2::text[]) and name = 'pageview' and path is not null
group by path order by pageviews desc, path limit 10

-- Marks (or unmarks) a visitor as internal traffic, with their sessions and events in this project.
-- $1 project_id, $2 visitor id, $3 is_internal
-- returns visitors, sessions, events (rows updated)
with v as (
  update visitors set is_internal = $3 where project_id = $1 and id = $2 returning id
), s as (
  update sessions set is_internal = $3 where project_id = $1 and visitor_id = $2 returning id
), e as (
  update events set is_internal = $3
  where project_id = $1 and session_id in (select id from sessions where project_id = $1 and visitor_id = $2)
  returning 1
)
select (select count(*) from v)::int as visitors, (select count(*) from s)::int as sessions, (select count(*) from e)::int as events

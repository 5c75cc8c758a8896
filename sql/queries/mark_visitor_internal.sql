-- Marks (or unmarks) a visitor as internal traffic, with their sessions and events in this project; the
-- UTC days of the rewritten events are marked stale for the rollups (see mark_rollup_days_stale.sql).
-- Events are found through the visitor's sessions (events have no visitor index), and among the events
-- stored without a session (an engagement report with no live session) by their visitor.
-- $1 project_id, $2 visitor id, $3 is_internal
-- returns visitors, sessions, events (rows updated)
with v as (
  update visitors set is_internal = $3 where project_id = $1 and id = $2 returning id
), s as (
  update sessions set is_internal = $3 where project_id = $1 and visitor_id = $2 returning id
), e as (
  update events set is_internal = $3
  where project_id = $1
    and (session_id in (select id from sessions where project_id = $1 and visitor_id = $2)
         or (session_id = '' and visitor_id = $2))
  returning (ts at time zone 'UTC')::date as day
), m as (
  insert into rollup_stale_days (project_id, day) select distinct $1, day from e
)
select (select count(*) from v)::int as visitors, (select count(*) from s)::int as sessions, (select count(*) from e)::int as events

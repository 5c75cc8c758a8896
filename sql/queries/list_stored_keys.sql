-- Which of a flush's event ids are stored already (a retry, or a flush of another process that committed
-- them first): the event store drops those events and writes the flush again (src/db/event-store.ts).
-- $1 project_id, $2 event ids text[]
-- returns event_id
select event_id from ingest_dedup where project_id = $1 and event_id = any($2::text[])

-- The flush writer's de-duplication keys (src/db/speculative-flush.ts): one row a new event, in id order,
-- as COPY text. A key already stored fails the COPY (and the flush's transaction) with a unique violation:
-- the flush is then written again the checked way, which claims its keys first (insert_dedup_keys.sql).
-- data: project_id, event_id, ts
copy ingest_dedup (project_id, event_id, ts) from stdin

-- Claims the de-duplication keys of one flush's events: a key already stored (a retry, or a race with
-- another flush) is skipped. Keys are inserted in id order so concurrent flushes lock them in one order:
-- by code point (collate "C"), the order the flush writer sorts them in (src/db/speculative-flush.ts).
-- $1 project_id, $2 event ids text[], $3 event timestamps as ISO 8601 text[] (same order; sent as text,
-- the client would parse and reformat each one as a date)
-- returns event_id of every key that was NOT new (duplicates, usually none): the other events are stored
with claimed as (
  insert into ingest_dedup (project_id, event_id, ts)
  select $1, k.id, k.ts::timestamptz from unnest($2::text[], $3::text[]) as k(id, ts)
  order by k.id collate "C"
  on conflict do nothing
  returning event_id
)
select k.id as event_id from unnest($2::text[]) as k(id)
where not exists (select 1 from claimed c where c.event_id = k.id)

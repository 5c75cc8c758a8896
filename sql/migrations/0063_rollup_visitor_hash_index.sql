-- Reads over a range part rolled up and part read from events (src/query/rollup/segments.ts) count the
-- raw part's visitors that no rolled day has: one probe per visitor hash, whatever the range's length.
create index rollup_day_visitors_hash on rollup_day_visitors (project_id, visitor_hash);

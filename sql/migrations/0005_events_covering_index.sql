-- Aggregate reads (stats, timeseries, breakdowns, the across-projects rows) scan one project's range of
-- events for the same few columns: the session, the visitor, the name and the traffic and environment
-- flags. Carrying them in the (project_id, ts) index lets Postgres answer from the index alone (an
-- index-only scan, once autovacuum has marked the pages all-visible) instead of visiting every row's
-- page. It replaces the plain index, so ingest still maintains the same number of index entries.
create index events_project_ts_covering on events (project_id, ts)
  include (session_id, visitor_id, name, bot_score, is_internal, is_localhost, environment);
drop index events_project_ts;

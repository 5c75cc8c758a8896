-- The session facts of the entry and exit page rows per set of values (0090) and per pair of sets (0094),
-- so those breakdowns under filters read the session metrics (sessions, bounce rate, session duration,
-- pages per session) from rows too (src/query/rollup/set-values.ts rollupFilteredEntryGroups), as they
-- read visitors, views and events: a session under filters is its events that match (stats.ts
-- sessionsSql), and one that lies within its day and is pure in class and in the row's family of sets
-- (both families for the pairs) is all in or all out, so its whole facts are summed in the row of its set,
-- class and page. The others are combined from their parts (rollup_day_session_parts) or their events. Read
-- from events at 1M events under device=mobile, such a read took 0.6 s; at 10M, 5.7–9.2 s.
alter table rollup_day_dim_entry
  add column sessions integer not null default 0,
  add column session_pageviews bigint not null default 0,
  add column bounces integer not null default 0,
  add column duration_ms numeric not null default 0;
alter table rollup_day_acq_entry
  add column sessions integer not null default 0,
  add column session_pageviews bigint not null default 0,
  add column bounces integer not null default 0,
  add column duration_ms numeric not null default 0;
alter table rollup_day_cross_entry
  add column sessions integer not null default 0,
  add column session_pageviews bigint not null default 0,
  add column bounces integer not null default 0,
  add column duration_ms numeric not null default 0;

-- The days counted before have none of these facts, and their entry rows per set may hold a session the
-- day's build listed as split (its sessions row not yet written then), which a read also recomputes from
-- its events: counted twice (build_rollup_set_sessions.sql now leaves those out). Counted again by the
-- background builder (list_rollup_set_session_days_to_build.sql takes a day without its record first;
-- reads under filters take such a day from events meanwhile).
delete from rollup_set_session_days;

-- The sessions of a page path (0090: under `page=X` a session is its events on X) per set of values too, so
-- the statistic block and the chart's session metrics under a page filter beside filters on one family of
-- dimensions (a row of the page panel clicked, then one of the devices, locations or sources panels:
-- `page=X & device=mobile`, `page=X & channel=Direct`) sum rows as under the page filter alone
-- (src/query/rollup/set-sessions.ts). Under such filters a session is its events on X that match the
-- others; a session-day's events on X that share one class and one set of the family are all in or all
-- out, so they are summed per set, class and path. Those sums are four more columns of the page facts per
-- set (0092), whose rows have that key and are counted and deleted with them: a table of their own took
-- 67 MB at 1M events (every row's key and header again), the columns about 8. The sessions on X whose events
-- there mix sets are kept as parts with their pair of sets, as those that mix classes were; a part says
-- which its session mixes, as under `page=X` alone a read combines only those mixed in class (the others
-- are in the per-value cells whole), beside a family's filters those mixed in class or in that family.
alter table rollup_day_dim_page_facts
  add column path_sessions integer not null default 0,
  add column path_pageviews bigint not null default 0,
  add column path_bounces integer not null default 0,
  add column path_duration_ms numeric not null default 0;
alter table rollup_day_acq_page_facts
  add column path_sessions integer not null default 0,
  add column path_pageviews bigint not null default 0,
  add column path_bounces integer not null default 0,
  add column path_duration_ms numeric not null default 0;

-- A read takes one path's rows of the sets the filters select: found through these indexes rather than
-- among every row of the range's days (a parallel scan of the table, 49 ms at 1M events against 6; 2 MB).
create index rollup_day_dim_page_facts_path on rollup_day_dim_page_facts (project_id, path, day);
create index rollup_day_acq_page_facts_path on rollup_day_acq_page_facts (project_id, path, day);

drop table rollup_day_value_parts;

create table rollup_day_value_parts (
  project_id  text not null,
  day         date not null,
  kind        smallint not null,
  value       text not null,
  session_id  text not null,
  dim_set_id  integer not null,
  acq_set_id  integer not null,
  tm          smallint not null,
  em          smallint not null,
  class_mixed boolean not null,
  dim_mixed   boolean not null,
  acq_mixed   boolean not null,
  first_ts    timestamptz not null,
  last_ts     timestamptz not null,
  pageviews   integer not null,
  custom      integer not null,
  active      integer not null,
  primary key (project_id, day, kind, value, session_id, dim_set_id, acq_set_id, tm, em)
);

-- The days counted before have no rows in these columns and parts: counted again by the background builder
-- (list_rollup_set_session_days_to_build.sql takes a day without its record first, and its recount deletes
-- the day's session facts first; reads under filters take such a day from events meanwhile).
delete from rollup_set_session_days;

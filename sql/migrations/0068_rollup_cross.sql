-- Day rollups that cross the two families of event dimensions: per day, class, set of visitor-level
-- values (rollup_dim_sets) and set of acquisition values (rollup_acq_sets), the non-engagement events,
-- pageviews and the visitors' 64-bit hashes. A breakdown by a member of one family under filters that
-- reach into the other (a referrer breakdown filtered by country) sums these rows (src/query/rollup/dims.ts);
-- reads within one family keep the smaller rows of 0008 and 0062.
create table rollup_day_cross (
  project_id  text not null,
  day         date not null,
  dim_set_id  integer not null,
  acq_set_id  integer not null,
  tm          smallint not null,
  em          smallint not null,
  pageviews   bigint not null,
  events      bigint not null,
  visitors    bigint[] not null,
  primary key (project_id, day, dim_set_id, acq_set_id, tm, em)
);

-- Days built before this table have no rows in it: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

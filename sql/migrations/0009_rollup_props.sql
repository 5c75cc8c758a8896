-- Day rollups of event props, for breakdowns by `prop:<key>`, alone or under `filter[event]` (signups by
-- plan): per day, event name, traffic/environment class (0007's bits), prop key and value, the
-- non-engagement events and pageviews and the distinct visitors as an array of the 64-bit hashes
-- build_rollup_days uses. See src/query/rollup/props.ts.
create table rollup_day_props (
  project_id text not null,
  day        date not null,
  name       text not null,
  tm         smallint not null,
  em         smallint not null,
  -- null: the row of all the day's events of the name and class, with or without props (the base a
  -- share is taken of); else a key of the events' props and its value as `props ->> key` reads it.
  key        text,
  value      text,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null
);
create index rollup_day_props_key on rollup_day_props (project_id, key, day);

-- Days built before this table existed have no rows in it: rebuilt by the next read that needs them.
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days on conflict do nothing;

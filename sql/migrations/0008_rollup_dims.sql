-- Day rollups of the visitor-level dimensions, for breakdowns by one of them under filters on the others
-- (country where device = mobile, browsers where os = iOS): per day, visitor, class and combination of
-- values, how many pageviews and events. Reads group these rows instead of the day's events; see
-- src/query/rollup/dims.ts and sql/README.md "Reads at scale".

-- The combinations of dimension values a project has seen, interned once: `key` is the row of values as
-- text (unambiguous: a null and an empty string differ), so a day build joins its groups to their ids by
-- one text column.
create table rollup_dim_sets (
  project_id      text not null,
  id              integer generated always as identity,
  key             text not null,
  country         text,
  region          text,
  city            text,
  browser         text,
  browser_version text,
  os              text,
  os_version      text,
  device          text,
  screen          text,
  language        text,
  release         text,
  primary key (project_id, id),
  unique (project_id, key)
);

-- Per day, traffic/environment class (the bits of 0007's functions) and set of values: the
-- non-engagement events and pageviews, and the distinct visitors as an array of the 64-bit hashes
-- build_rollup_days uses. A read unnests the arrays of the sets it selects: a few thousand rows a month,
-- not one per visitor and day.
create table rollup_day_dims (
  project_id text not null,
  day        date not null,
  set_id     integer not null,
  tm         smallint not null,
  em         smallint not null,
  pageviews  bigint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, set_id, tm, em)
);

-- Days built before this table existed have no rows in it: mark them stale, so the next read that needs
-- one rebuilds it whole.
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days on conflict do nothing;

-- Day rollups of the acquisition dimensions (referrer, its domain, channel, the five UTM fields), as
-- 0008 keeps the visitor-level ones: the combinations of values interned per project, and per day,
-- class and combination the non-engagement events, pageviews and the visitors' 64-bit hashes. Reads
-- by one of them under filters on the others sum these rows (src/query/rollup/dims.ts).
create table rollup_acq_sets (
  project_id      text not null,
  id              integer generated always as identity,
  key             text not null,
  referrer        text,
  referrer_domain text,
  channel         text,
  utm_source      text,
  utm_medium      text,
  utm_campaign    text,
  utm_term        text,
  utm_content     text,
  primary key (project_id, id),
  unique (project_id, key)
);

create table rollup_day_acq (
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

-- Days built before this table have no rows in it: marked, so the background builder rebuilds them
-- (reads over them take events meanwhile).
insert into rollup_stale_days (project_id, day) select project_id, day from rollup_days;

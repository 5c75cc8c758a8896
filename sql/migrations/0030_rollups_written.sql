-- The day rollups are kept by the writers (src/db/rollup-apply.ts): each checkpoint recomputes the
-- session-days its events touched and adds the difference to the day rows, so no read builds a rollup.
-- See docs/sql.md "Reads at scale: day rollups".

-- What each session-day added to rollup_day_totals, per label (a selection, or below 0 a class of a
-- single-class session-day, as in build_rollup_days.sql): the next recompute of the session-day adds the
-- new numbers and takes these away.
create table rollup_session_contrib (
  project_id  text not null,
  day         date not null,
  session_id  text not null,
  label       smallint not null,
  sessions    integer not null,
  pageviews   integer not null,
  events      integer not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, session_id, label)
);

-- What each session-day added to rollup_day_pages, per label and page.
create table rollup_session_page_contrib (
  project_id        text not null,
  day               date not null,
  session_id        text not null,
  label             smallint not null,
  page              text not null,
  pageviews         integer not null,
  events            integer not null,
  sessions          integer not null,
  bounces           integer not null,
  duration_ms       numeric not null,
  session_pageviews integer not null,
  time_sum          float8 not null,
  time_count        integer not null,
  scroll_sum        float8 not null,
  scroll_count      integer not null,
  primary key (project_id, day, session_id, label, page)
);

-- Days whose rollups a writer must rebuild whole (events rewritten by the visitor-internal PATCH, a
-- retention cut inside a day, days from before this migration). Reads over such a day answer from events
-- until the rebuild is done; the flush's rollup_stale_days marks are no longer read.
create table rollup_pending_days (
  project_id text not null,
  day        date not null,
  marked_at  timestamptz not null default now(),
  primary key (project_id, day)
);

-- Rollups built by reads before this migration have no contributions to subtract from: every day with
-- events is rebuilt by the writer (src/db/rollup-apply.ts rebuildPendingDays, started with the server).
delete from rollup_days;
delete from rollup_day_totals;
delete from rollup_day_visitors;
delete from rollup_day_split_sessions;
delete from rollup_day_pages;
delete from rollup_day_page_visitors;
delete from rollup_day_dims;
delete from rollup_day_props;
delete from rollup_range_values;
delete from rollup_stale_days;
insert into rollup_pending_days (project_id, day)
select distinct project_id, (ts at time zone 'UTC')::date from events;

-- Prop rows are added to by upsert: one row per (day, name, class, key, value), the base row's null key
-- and value included.
create unique index rollup_day_props_row on rollup_day_props (project_id, day, name, tm, em, key, value) nulls not distinct;

-- Distinct visitor hashes of two arrays (dimension and prop rows gain visitors as events are added).
create function loupe_hash_union(a bigint[], b bigint[]) returns bigint[]
language sql immutable parallel safe as $$
  select array(select distinct x from unnest(a || b) x)
$$;

-- Rollups of closed UTC days, built at read time for the days a read needs (src/query/rollup/*) and
-- kept until a write into the day marks it stale. They hold per (project, day) what the aggregate reads
-- sum or count over a range, so a 30-day read reads 30 days of small rows instead of every event.
-- `sel` is one (traffic, environment) selection: traffic human 0, bots 1, internal 2, all 3 times 3
-- plus environment production 0, preview 1, all 2 (0 … 11); a mask holds bit 1 << sel per selection.

-- The classes an event falls in, as bits the builders test against a selection's traffic `t` and
-- environment `v` ((bits >> t) & 1): traffic human 1 (as the reads' default defines it: no bot score of 50
-- or more, not internal, not localhost), bots 2, internal 4, all 8; environment production 1, preview 2,
-- all 4. Defined once here for every builder; simple SQL functions, so the planner inlines them.
create function loupe_traffic_bits(bot_score smallint, is_internal boolean, is_localhost boolean) returns int
language sql immutable parallel safe as $$
  select (case when bot_score < 50 and not is_internal and not is_localhost then 1 else 0 end
    | case when bot_score >= 50 then 2 else 0 end | case when is_internal then 4 else 0 end | 8)
$$;
create function loupe_environment_bits(environment text) returns int
language sql immutable parallel safe as $$
  select (case environment when 'production' then 1 when 'preview' then 2 else 0 end | 4)
$$;

-- A write (flush, visitor-internal PATCH, retention, seed) into a day puts the day here; a rebuild
-- deletes the mark and rebuilds in one transaction.
create table rollup_stale_days (
  project_id text not null,
  day        date not null,
  marked_at  timestamptz not null default now(),
  primary key (project_id, day)
);

-- The days whose rollup rows exist. `irregular`: some session of the day carries more than one visitor
-- id, where "visitors of sessions" and "visitors of events" could differ; reads over it stay raw.
-- build_seq grows with every build; builds of one project are serialized (an advisory lock), so a
-- range's max(build_seq) changes whenever one of its days is rebuilt.
create sequence rollup_build_seq;
create table rollup_days (
  project_id text not null,
  day        date not null,
  built_at   timestamptz not null default now(),
  build_seq  bigint not null default nextval('rollup_build_seq'),
  irregular  boolean not null,
  primary key (project_id, day)
);

-- Per day and selection: visitors (distinct ids), events, pageviews, and the sessions of the day clipped
-- to the day (a session counts on each day it has a non-engagement event; bounces and durations as if
-- the day were the range). Sessions that also have events on other days are listed in
-- rollup_day_split_sessions, and a read over several days corrects for them from their events.
create table rollup_day_totals (
  project_id  text not null,
  day         date not null,
  sel         smallint not null,
  visitors    integer not null,
  sessions    integer not null,
  pageviews   bigint not null,
  events      bigint not null,
  bounces     integer not null,
  duration_ms numeric not null,
  primary key (project_id, day, sel)
);

-- One row per visitor active on the day (a non-engagement event): a 64-bit hash of the id and the mask
-- of selections the visitor's events fall in. Distinct visitors over a range count these small rows.
create table rollup_day_visitors (
  project_id   text not null,
  day          date not null,
  visitor_hash bigint not null,
  sel_mask     smallint not null,
  primary key (project_id, day, visitor_hash)
);

-- Sessions of the day that had events on another day when the day was built.
create table rollup_day_split_sessions (
  project_id text not null,
  day        date not null,
  session_id text not null,
  primary key (project_id, day, session_id)
);

-- Values computed once per range from the day rows (distinct visitors, retention cells, visitors per
-- page), kept with the max(build_seq) of the range's days and reused while it is unchanged.
create table rollup_range_values (
  project_id text not null,
  from_day   date not null,
  to_day     date not null,
  sel        smallint not null,
  kind       text not null,
  build_seq  bigint not null,
  value      jsonb not null,
  primary key (project_id, from_day, to_day, sel, kind)
);

-- Per day, selection and page (events.path): the page breakdown's sums. Sessions are those with a
-- non-engagement event on the page that day, clipped to the day like rollup_day_totals; time on page
-- and scroll depth are sums and counts of the day's page facts (src/query/metrics.ts pageFactsSql).
create table rollup_day_pages (
  project_id        text not null,
  day               date not null,
  sel               smallint not null,
  page              text not null,
  pageviews         bigint not null,
  events            bigint not null,
  sessions          integer not null,
  bounces           integer not null,
  duration_ms       numeric not null,
  session_pageviews bigint not null,
  time_sum          float8 not null,
  time_count        integer not null,
  scroll_sum        float8 not null,
  scroll_count      integer not null,
  primary key (project_id, day, sel, page)
);

-- One row per (day, page, visitor) with a non-engagement event, as rollup_day_visitors.
create table rollup_day_page_visitors (
  project_id   text not null,
  day          date not null,
  page         text not null,
  visitor_hash bigint not null,
  sel_mask     smallint not null,
  primary key (project_id, day, page, visitor_hash)
);

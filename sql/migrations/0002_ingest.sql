-- Ingest storage: events (partitioned by month on ts), the de-duplication keys, sessions, visitors,
-- Web Vitals samples, the log stream and hourly ingest counters. project_id leads every key.
-- See sql/README.md for why each index exists.

create table events (
  project_id      text not null,
  ts              timestamptz not null,
  id              text not null,
  name            text not null,
  visitor_id      text not null,
  session_id      text not null,
  path            text,
  route           text,
  title           text,
  host            text,
  referrer        text,
  referrer_domain text,
  channel         text,
  utm_source      text,
  utm_medium      text,
  utm_campaign    text,
  utm_term        text,
  utm_content     text,
  country         text,
  region          text,
  city            text,
  browser         text,
  browser_version text,
  os              text,
  os_version      text,
  device          text,
  screen          text,
  viewport        text,
  language        text,
  connection      text,
  props           jsonb not null default '{}',
  groups          jsonb not null default '{}',
  user_id         text,
  release         text,
  environment     text not null default 'production',
  is_internal     boolean not null default false,
  is_localhost    boolean not null default false,
  bot_score       smallint not null default 0,
  received_at     timestamptz not null default now()
) partition by range (ts);

-- Catch-all for timestamps outside the monthly partitions the writer creates ahead of use.
create table events_default partition of events default;

create index events_project_ts on events (project_id, ts);
create index events_project_session on events (project_id, session_id, ts);
create index events_project_name_ts on events (project_id, name, ts);

-- A retried event (same project and client id) is a duplicate: this key decides, inside the flush.
create table ingest_dedup (
  project_id text not null,
  event_id   text not null,
  ts         timestamptz not null,
  primary key (project_id, event_id)
);

create table sessions (
  project_id      text not null,
  id              text not null,
  visitor_id      text not null,
  started_at      timestamptz not null,
  last_activity   timestamptz not null,
  pageviews       integer not null default 0,
  events          integer not null default 0,
  entry_page      text,
  exit_page       text,
  referrer        text,
  referrer_domain text,
  channel         text,
  utm_source      text,
  utm_medium      text,
  utm_campaign    text,
  country         text,
  device          text,
  browser         text,
  os              text,
  environment     text not null default 'production',
  is_internal     boolean not null default false,
  is_localhost    boolean not null default false,
  bot_score       smallint not null default 0,
  primary key (project_id, id)
);
create index sessions_project_started on sessions (project_id, started_at);
create index sessions_project_visitor on sessions (project_id, visitor_id, started_at);

create table visitors (
  project_id      text not null,
  id              text not null,
  first_seen      timestamptz not null,
  last_seen       timestamptz not null,
  user_id         text,
  traits          jsonb not null default '{}',
  groups          jsonb not null default '{}',
  experiments     jsonb not null default '{}',
  country         text,
  region          text,
  city            text,
  postal_code     text,
  timezone        text,
  latitude        double precision,
  longitude       double precision,
  browser         text,
  browser_version text,
  os              text,
  os_version      text,
  device          text,
  screen          text,
  viewport        text,
  language        text,
  connection      text,
  bot_score       smallint not null default 0,
  bot_signals     jsonb not null default '{}',
  is_internal     boolean not null default false,
  primary key (project_id, id)
);
create index visitors_project_first_seen on visitors (project_id, first_seen);

create table speed_samples (
  project_id  text not null,
  ts          timestamptz not null,
  event_id    text not null,
  visitor_id  text not null,
  path        text,
  route       text,
  device      text,
  country     text,
  environment text not null default 'production',
  lcp         double precision,
  inp         double precision,
  cls         double precision,
  fcp         double precision,
  ttfb        double precision,
  element     text,
  bot_score   smallint not null default 0
);
create index speed_samples_project_ts on speed_samples (project_id, ts);

create table logs (
  id         bigint generated always as identity primary key,
  project_id text not null,
  ts         timestamptz not null default now(),
  level      text not null check (level in ('info', 'ok', 'warn', 'error')),
  kind       text not null check (kind in ('ingest', 'transport', 'pipeline', 'signals', 'jobs', 'auth')),
  source     text not null check (source in ('api', 'sdk', 'engine', 'cron')),
  message    text not null,
  data       jsonb not null default '{}',
  visitor    text,
  session    text
);
create index logs_project_id on logs (project_id, id);
create index logs_ts on logs (ts);

create table ingest_counters (
  project_id   text not null,
  hour         timestamptz not null,
  accepted     integer not null default 0,
  duplicates   integer not null default 0,
  rejected     integer not null default 0,
  rate_limited integer not null default 0,
  primary key (project_id, hour)
);

-- Deleting a project removes its rows from every table that has a project_id column (events carry no
-- foreign key: it would slow ingest). Tables added by later migrations are covered without a change here.
create function loupe_delete_project_rows(p text) returns void language plpgsql as $$
declare t record;
begin
  for t in
    select cl.relname from pg_attribute a
    join pg_class cl on cl.oid = a.attrelid
    join pg_namespace n on n.oid = cl.relnamespace
    where a.attname = 'project_id' and not a.attisdropped and n.nspname = current_schema()
      and cl.relkind in ('r', 'p') and not cl.relispartition and cl.relname <> 'projects'
  loop
    execute format('delete from %I where project_id = $1', t.relname) using p;
  end loop;
end $$;

-- Creates the monthly events partition holding `at` (idempotent). The writer calls it before the
-- first row of a new month, so the default partition stays empty.
create function loupe_ensure_events_partition(at timestamptz) returns text language plpgsql as $$
declare
  start_at timestamptz := date_trunc('month', at at time zone 'UTC') at time zone 'UTC';
  name text := format('events_y%sm%s', to_char(start_at at time zone 'UTC', 'YYYY'), to_char(start_at at time zone 'UTC', 'MM'));
begin
  if to_regclass(name) is null then
    execute format('create table if not exists %I partition of events for values from (%L) to (%L)',
      name, start_at, start_at + interval '1 month');
  end if;
  return name;
end $$;

-- Merges jsonb objects row by row (later keys win): visitors' traits, groups and experiments.
create aggregate loupe_jsonb_merge(jsonb) (sfunc = jsonb_concat, stype = jsonb, initcond = '{}');

-- Foundation: projects with their keys, API tokens, dashboard members and their sign-in sessions,
-- and the job runs table. Secrets (secret keys, tokens, session tokens) are stored as SHA-256 hashes.

create table projects (
  id                  text primary key check (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name                text not null check (length(name) between 1 and 200),
  visibility          text not null default 'private' check (visibility in ('public', 'private')),
  public_visitor_data boolean not null default false,
  sql_enabled         boolean not null default false,
  widget_reports      boolean not null default false,
  allowed_origins     text[] not null default '{}',
  retention_days      integer not null default 395 check (retention_days between 1 and 3650),
  public_key          text not null unique,
  secret_key_hash     text not null unique,
  secret_key_hint     text not null,
  salt                text not null,
  previous_salt       text,
  salt_rotated_at     timestamptz,
  daily_salt          boolean not null default false,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now()
);

create table api_tokens (
  id           text primary key,
  name         text not null check (length(name) between 1 and 200),
  scope        text not null check (scope in ('read', 'sql', 'admin')),
  project_ids  text[],
  token_hash   text not null unique,
  token_hint   text not null,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  created_by   text,
  created_at   timestamptz not null default now(),
  last_used_at timestamptz
);

create table dashboard_users (
  id          text primary key,
  login       text not null unique,
  name        text,
  avatar_url  text,
  role        text not null check (role in ('owner', 'admin', 'analyst', 'viewer')),
  project_ids text[],
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now()
);

create table auth_sessions (
  id           text primary key,
  token_hash   text not null unique,
  user_id      text not null references dashboard_users (id) on delete cascade,
  created_at   timestamptz not null default now(),
  expires_at   timestamptz not null,
  last_seen_at timestamptz not null default now()
);
create index auth_sessions_user on auth_sessions (user_id);

create table job_runs (
  id          bigint generated always as identity primary key,
  job         text not null,
  started_at  timestamptz not null,
  finished_at timestamptz not null,
  ok          boolean not null,
  summary     jsonb not null default '{}'
);
create index job_runs_job_started on job_runs (job, started_at desc);

-- Values that the embedded default prints once (first start) and settings the server keeps.
create table server_state (
  key   text primary key,
  value jsonb not null
);

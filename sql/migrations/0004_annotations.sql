-- Annotations: markers on a project's timeline (a release, an incident, a campaign…), a point in time or
-- a span. Listed by range, so the index leads with the project and the start.

create table annotations (
  project_id text not null,
  id         text not null,
  title      text not null check (length(title) between 1 and 200),
  date       timestamptz not null,
  end_date   timestamptz,
  kind       text not null check (kind in ('release', 'incident', 'campaign', 'change', 'note')),
  note       text check (length(note) <= 2000),
  url        text check (length(url) <= 2048 and url ~* '^https?://'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (project_id, id),
  constraint annotations_end_after_start check (end_date is null or end_date >= date)
);

create index annotations_project_date on annotations (project_id, date);

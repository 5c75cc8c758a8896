-- Errors grouped into issues. An error event carries the id of its issue; the issue row keeps the
-- counts, first/last seen and releases, and the lifecycle state decided by the issue-lifecycle machine.

create table issues (
  project_id    text not null,
  id            text not null,
  fingerprint   text not null,
  title         text not null,
  culprit       text not null default '',
  type          text,
  level         text not null default 'error',
  status        text not null default 'open' check (status in ('open', 'resolved', 'ignored')),
  is_regression boolean not null default false,
  count         integer not null default 0,
  first_seen    timestamptz not null,
  last_seen     timestamptz not null,
  first_release text,
  last_release  text,
  resolved_at   timestamptz,
  primary key (project_id, id)
);
create index issues_project_last_seen on issues (project_id, last_seen desc, id desc);

alter table events add column issue_id text;
-- Partial: only error events that opened or joined an issue pay for this index.
create index events_project_issue on events (project_id, issue_id, ts desc) where issue_id is not null;

-- The SQL route's schema for analysts (docs/sql-route.md): schema `analyst` holds one security_barrier
-- view per resource, each filtered to the project loupe_analyst_project() names. A caller's query sees
-- these views only; the base tables stay out of its reach.

create schema analyst;

-- The database role that runs each project's queries on PostgreSQL: a login role with no right but
-- reading the analyst views, so a query cannot change `session_user` and thereby its project. The
-- password lets the server log in as it; only Loupe's own role reads this table.
create table sql_roles (
  project_id text primary key,
  role_name  text not null unique,
  password   text not null,
  created_at timestamptz not null default now()
);

-- The project a session may read. A session that can read the base tables itself (Loupe's own role, and
-- the embedded database's one superuser session) narrows the views with the setting loupe.sql_project,
-- which the server sets per transaction; any other session gets its login role's project, or nothing.
-- A restricted role that calls set_config therefore changes nothing: the setting is not read for it.
create function loupe_analyst_project() returns text
language sql stable security definer set search_path from current as $$
  select case
    when has_table_privilege(session_user, 'events', 'select')
      then nullif(current_setting('loupe.sql_project', true), '')
    else (select r.project_id from sql_roles r where r.role_name = session_user)
  end
$$;

create view analyst.events with (security_barrier) as
select e.id, e.ts, e.name, e.visitor_id, e.session_id, e.path, e.route, e.title, e.host, e.referrer,
       e.referrer_domain, e.channel, e.utm_source, e.utm_medium, e.utm_campaign, e.utm_term, e.utm_content,
       e.country, e.region, e.city, e.browser, e.browser_version, e.os, e.os_version, e.device, e.screen,
       e.viewport, e.language, e.connection, e.props, e.groups, e.user_id, e.release, e.environment,
       e.issue_id, e.is_internal, e.is_localhost, e.bot_score,
       (e.bot_score < 50 and not e.is_internal and not e.is_localhost) as is_human, e.received_at
from events e
where e.project_id = loupe_analyst_project();

create view analyst.sessions with (security_barrier) as
select s.id, s.visitor_id, s.started_at, s.last_activity,
       (extract(epoch from s.last_activity - s.started_at) * 1000)::bigint as duration_ms,
       s.pageviews, s.events, s.entry_page, s.exit_page, s.referrer, s.referrer_domain, s.channel,
       s.utm_source, s.utm_medium, s.utm_campaign, s.country, s.device, s.browser, s.os, s.environment,
       s.is_internal, s.is_localhost, s.bot_score,
       (s.bot_score < 50 and not s.is_internal and not s.is_localhost) as is_human
from sessions s
where s.project_id = loupe_analyst_project();

create view analyst.visitors with (security_barrier) as
select v.id, v.first_seen, v.last_seen, v.user_id, v.traits, v.groups, v.experiments, v.country, v.region,
       v.city, v.postal_code, v.timezone, v.latitude, v.longitude, v.browser, v.browser_version, v.os,
       v.os_version, v.device, v.screen, v.viewport, v.language, v.connection, v.bot_score, v.bot_signals,
       v.is_internal
from visitors v
where v.project_id = loupe_analyst_project();

create view analyst.issues with (security_barrier) as
select i.id, i.title, i.culprit, i.type, i.level, i.status, i.is_regression, i.count, i.first_seen,
       i.last_seen, i.first_release, i.last_release, i.resolved_at
from issues i
where i.project_id = loupe_analyst_project();

create view analyst.speed_samples with (security_barrier) as
select s.event_id, s.ts, s.visitor_id, s.path, s.route, s.device, s.country, s.environment, s.lcp, s.inp,
       s.cls, s.fcp, s.ttfb, s.element, s.bot_score
from speed_samples s
where s.project_id = loupe_analyst_project();

create view analyst.annotations with (security_barrier) as
select a.id, a.title, a.date, a.end_date, a.kind, a.note, a.url, a.created_at, a.updated_at
from annotations a
where a.project_id = loupe_analyst_project();

-- Creates (or refreshes) a project's login role: it may connect and read the analyst views, nothing else;
-- its sessions are read-only with a search path of the analyst schema. Run by the server, which needs the
-- CREATEROLE attribute for it (docs/sql-route.md); re-run when a pool opens, so views added later are granted.
create function loupe_sql_prepare_role(role_name text, password text) returns void
language plpgsql as $$
begin
  if not exists (select 1 from pg_roles where rolname = role_name) then
    execute format('create role %I login password %L nosuperuser nocreatedb nocreaterole noinherit '
      'noreplication nobypassrls connection limit 8', role_name, password);
  else
    execute format('alter role %I login password %L', role_name, password);
  end if;
  execute format('alter role %I set search_path = analyst', role_name);
  execute format('alter role %I set default_transaction_read_only = on', role_name);
  execute format('alter role %I set idle_in_transaction_session_timeout = %L', role_name, '60s');
  execute format('revoke all on schema %I from %I', current_schema(), role_name);
  execute format('grant usage on schema analyst to %I', role_name);
  execute format('grant select on all tables in schema analyst to %I', role_name);
end $$;

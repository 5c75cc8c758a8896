-- Event names per page path, so the page breakdown under a filter on the event name (a row of the Events
-- panel clicked: on which pages `signup` happens) sums rows instead of grouping every event of the range
-- (src/query/rollup/pages.ts rollupEventPageGroups): per day, event name, path and class, the events
-- and the distinct visitors' 64-bit hashes. Pageviews and engagement reports are left out: a day's
-- pageview rows would be as large as its page visitors (the largest rollup table), and a filter on either
-- name is rare enough to read from events; every other name is a few thousand rows at 1M events. Events
-- without a path (a server's) are left out as the page rows leave them. Built by
-- build_rollup_set_value_days.sql, folded per event by fold_rollup_value_days.sql.
create table rollup_day_path_names (
  project_id text not null,
  day        date not null,
  name       text not null,
  path       text not null,
  tm         smallint not null,
  em         smallint not null,
  events     bigint not null,
  visitors   bigint[] not null,
  primary key (project_id, day, name, path, tm, em)
);

-- The days built before this table get their rows here, as their build would have counted them: every
-- event of the day but those whose marks are not folded yet (the fold adds those, as after a build). A day
-- marked whole is rebuilt, these rows with it. This reads every event once and sorts those it keeps (at 1M
-- events under 3 s; at 10M, see docs/sql.md); marking every day for a rebuild instead would send every
-- read to events until the builder had rebuilt them all, at 10M events for hours.
insert into rollup_day_path_names (project_id, day, name, path, tm, em, events, visitors)
select e.project_id, (e.ts at time zone 'UTC')::date, e.name, e.path,
  loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost)::smallint,
  loupe_environment_bits(e.environment)::smallint, count(*), array_agg(distinct hashtextextended(e.visitor_id, 0))
from events e
join rollup_days d on d.project_id = e.project_id and d.day = (e.ts at time zone 'UTC')::date
where e.name not in ('pageview', 'engagement') and e.path is not null
  -- an anti-join, not NOT IN: the marks of every project may outgrow the memory a hashed NOT IN needs,
  -- and without it NOT IN scans the marks once an event
  and not exists (
    select 1 from rollup_stale_days m
    where m.project_id = e.project_id and m.day = d.day and m.event_id = e.id and m.ts = e.ts)
group by 1, 2, 3, 4, 5, 6;

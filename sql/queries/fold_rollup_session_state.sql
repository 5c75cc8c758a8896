-- The last of a fold's statements before its marks are deleted (src/query/rollup/fold.ts): what the day's
-- rows now hold of each touched session (0086_rollup_session_state.sql), as build_rollup_session_state.sql
-- would count it. A session the fold took from its row (fold_rollup_days.sql's `merged`) adds its marked
-- events: counts add, the span and the paths widen, and the last pageview is the last marked one (with
-- the reports after it) or the held one with the marked reports added. Any other touched session is
-- counted from its events of the day; one whose events now span classes has no row. Days before
-- yesterday keep no rows (the fold drops the project's).
-- $1 project_id, $2 day (date), $3 the day after (date)
-- returns sessions (rows written), dropped (rows deleted)
with since as (select (now() at time zone 'UTC')::date - 1 as day),
touched as (
  select distinct session_id from rollup_stale_days
  where project_id = $1 and day = $2::date and session_id is not null
),
marks as materialized (
  select m.event_id, m.ts from rollup_stale_days m
  where m.project_id = $1 and m.day = $2::date and m.event_id is not null
),
mev as materialized (
  select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from marks m join events e on e.project_id = $1 and e.ts = m.ts and e.id = m.event_id
),
merged as materialized (
  select k.* from rollup_day_session_state k
  where k.project_id = $1 and k.day = $2::date and k.session_id in (select session_id from touched)
    and not exists (
      select 1 from mev m where m.session_id = k.session_id
        and (m.tm <> k.tm or m.em <> k.em or (m.ts, m.id) <= (k.last_ts, k.last_id)))
),
-- the other touched sessions' events of the day, every one now held
ev as materialized (
  select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e, since
  where e.project_id = $1 and $2::date >= since.day
    and e.session_id in (select session_id from touched except select session_id from merged)
    and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
),
-- merged sessions and the other ones alike: each session's held events as one set (the merged ones' held
-- events stand in as their row's counts, paths and last pageview)
counts as (
  select k.session_id, k.tm, k.em, least(k.visitor_min, min(m.visitor_id)) as visitor_min,
    greatest(k.visitor_max, max(m.visitor_id)) as visitor_max, least(k.first_ts, min(m.ts)) as first_ts,
    greatest(k.last_ts, max(m.ts)) as last_ts,
    k.pageviews + count(m.id) filter (where m.name = 'pageview') as pageviews,
    k.custom + count(m.id) filter (where m.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    k.active + count(m.id) filter (where m.name <> 'engagement') as active,
    array(select distinct p from unnest(k.paths || coalesce(array_agg(m.path) filter (
      where m.name <> 'engagement' and m.path is not null), '{}')) p order by p) as paths
  from merged k left join mev m on m.session_id = k.session_id
  group by k.session_id, k.tm, k.em, k.visitor_min, k.visitor_max, k.first_ts, k.last_ts, k.pageviews, k.custom,
    k.active, k.paths
  union all
  select session_id, min(tm), min(em), min(visitor_id), max(visitor_id), min(ts), max(ts),
    count(*) filter (where name = 'pageview'),
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')),
    count(*) filter (where name <> 'engagement'),
    coalesce(array_agg(distinct path) filter (where name <> 'engagement' and path is not null), '{}')
  from ev group by 1
  having min(tm) = max(tm) and min(em) = max(em)
),
-- the events after which the last event and the last pageview are looked for: a merged session's marked
-- events (all after what its row holds), any other session's events
after as (
  select m.session_id, m.id, m.ts, m.name, m.path, m.time_ms, m.scroll from mev m
  where m.session_id in (select session_id from merged)
  union all
  select session_id, id, ts, name, path, time_ms, scroll from ev
),
last_event as (
  select distinct on (session_id) session_id, ts, id from after order by session_id, ts desc, id desc
),
last_pageview as (
  select distinct on (session_id) session_id, ts, id, path
  from after where name = 'pageview' order by session_id, ts desc, id desc
),
reported as (
  select p.session_id, max(a.time_ms) as time_ms, max(a.scroll) as scroll
  from last_pageview p join after a on a.session_id = p.session_id and a.name = 'engagement' and (a.ts, a.id) > (p.ts, p.id)
  group by 1
),
-- a merged session without a marked pageview keeps its held one, with the marked reports added
held_pageview as (
  select k.session_id, k.lp_ts, k.lp_id, k.lp_path, greatest(k.lp_time, max(m.time_ms)) as lp_time,
    greatest(k.lp_scroll, max(m.scroll)) as lp_scroll
  from merged k left join mev m on m.session_id = k.session_id and m.name = 'engagement'
  where k.lp_ts is not null and k.session_id not in (select session_id from last_pageview)
  group by 1, 2, 3, 4, k.lp_time, k.lp_scroll
),
state as (
  select c.*, coalesce(l.id, k.last_id) as last_id,
    coalesce(p.ts, h.lp_ts) as lp_ts, coalesce(p.id, h.lp_id) as lp_id,
    case when p.session_id is not null then p.path else h.lp_path end as lp_path,
    case when p.session_id is not null then r.time_ms else h.lp_time end as lp_time,
    case when p.session_id is not null then r.scroll else h.lp_scroll end as lp_scroll
  from counts c
  left join merged k on k.session_id = c.session_id
  left join last_event l on l.session_id = c.session_id
  left join last_pageview p on p.session_id = c.session_id
  left join reported r on r.session_id = c.session_id
  left join held_pageview h on h.session_id = c.session_id
  where $2::date >= (select day from since)
),
dropped as (
  delete from rollup_day_session_state s using since
  where s.project_id = $1 and (s.day < since.day
    or s.day = $2::date and s.session_id in (select session_id from touched)
      and s.session_id not in (select session_id from state))
  returning 1
),
written as (
  insert into rollup_day_session_state as r (project_id, day, session_id, tm, em, visitor_min, visitor_max, first_ts,
    last_ts, last_id, pageviews, custom, active, paths, lp_ts, lp_id, lp_path, lp_time, lp_scroll)
  select $1, $2::date, session_id, tm, em, visitor_min, visitor_max, first_ts, last_ts, last_id, pageviews, custom,
    active, paths, lp_ts, lp_id, lp_path, lp_time, lp_scroll
  from state
  on conflict (project_id, day, session_id) do update set tm = excluded.tm, em = excluded.em,
    visitor_min = excluded.visitor_min, visitor_max = excluded.visitor_max, first_ts = excluded.first_ts,
    last_ts = excluded.last_ts, last_id = excluded.last_id, pageviews = excluded.pageviews, custom = excluded.custom,
    active = excluded.active, paths = excluded.paths, lp_ts = excluded.lp_ts, lp_id = excluded.lp_id,
    lp_path = excluded.lp_path, lp_time = excluded.lp_time, lp_scroll = excluded.lp_scroll
  returning 1
)
select (select count(*) from written)::int as sessions, (select count(*) from dropped)::int as dropped

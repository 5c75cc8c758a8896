-- loupe_fold_marks (0086) as before, with each marked event's held session row looked up once. Written as a
-- subquery the planner flattened, every use of the row's members (its class, its last event, the row
-- itself) ran the lookup again: five index probes a marked event, in every fold statement and every read
-- that adds marks. `offset 0` keeps the inner select a subquery of its own, so the row is fetched once.
create or replace function loupe_fold_marks(p text, d date) returns table (
  id text, session_id text, visitor_id text, name text, ts timestamptz, path text, time_ms float8, scroll float8,
  tm int, em int, k rollup_day_session_state, merged boolean, m_visitor_min text, m_visitor_max text,
  m_first_ts timestamptz, m_last_ts timestamptz, m_pageviews bigint, m_custom bigint, m_active bigint,
  m_paths text[]
) language sql stable as $$
  select mk.*,
    coalesce(bool_and((mk.k).tm = mk.tm and (mk.k).em = mk.em and (mk.ts, mk.id) > ((mk.k).last_ts, (mk.k).last_id))
      over s, false),
    min(mk.visitor_id) over s, max(mk.visitor_id) over s, min(mk.ts) over s, max(mk.ts) over s,
    count(*) filter (where mk.name = 'pageview') over s,
    count(*) filter (where mk.name not in ('pageview', 'engagement', 'speed', 'error')) over s,
    count(*) filter (where mk.name <> 'engagement') over s,
    coalesce(array_agg(mk.path) filter (where mk.name <> 'engagement' and mk.path is not null) over s, '{}')
  from (
    select e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
      case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
      case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
      loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em,
      (select k from rollup_day_session_state k
       where k.project_id = p and k.day = d and k.session_id = e.session_id) as k
    from rollup_stale_days m
    join events e on e.project_id = p and e.ts = m.ts and e.id = m.event_id
      and e.ts >= (d::timestamp at time zone 'UTC') and e.ts < ((d + 1)::timestamp at time zone 'UTC')
    where m.project_id = p and m.day = d and m.event_id is not null
    offset 0
  ) mk
  window s as (partition by mk.session_id)
$$;

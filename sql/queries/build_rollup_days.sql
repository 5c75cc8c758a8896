-- Builds the rollups of one project's UTC days [$2, $3) from its events (the caller has deleted the
-- days' stale marks and old rollup rows, in this transaction or an earlier one of the same build), and
-- inserts the rollup_days rows that make the days built for reads: the builder runs it last of
-- BUILD_STATEMENTS (builder.ts). Selections: see 0007_rollups.sql.
-- Metric definitions follow src/query/stats.ts and metrics.ts, with the day as the range.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns totals, visitors, split, days (rows inserted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.session_id, e.visitor_id, e.name, e.ts,
    loupe_traffic_bits(e.bot_score, e.is_internal, e.is_localhost) as tm, loupe_environment_bits(e.environment) as em
  from events e
  where e.project_id = $1 and e.ts >= ($2::date::timestamp at time zone 'UTC') and e.ts < ($3::date::timestamp at time zone 'UTC')
    -- not an event marked late: the build's first step took the marks it saw, and these came after it.
    -- NOT IN, planned as one hashed set of the marks whatever their estimate (docs/sql.md, "Marks left out")
    and (e.id, e.ts) not in (
      select m.event_id, m.ts from rollup_stale_days m
      where m.project_id = $1 and m.day >= $2::date and m.day < $3::date and m.event_id is not null and m.ts is not null)
),
sels as (select (t * 3 + v)::smallint as sel, t, v from generate_series(0, 3) t, generate_series(0, 2) v),
-- a session's events of one day and one traffic/environment class
sc as materialized (
  select day, session_id, tm, em, min(visitor_id) as v_min, max(visitor_id) as v_max,
    min(ts) as first_ts, max(ts) as last_ts,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where name <> 'engagement') as active
  from ev group by 1, 2, 3, 4
),
-- the session-day under each selection (its events in every class the selection takes). A session-day
-- of one class is the same in every selection that takes the class: it is summed once under the label
-- -1 - class and added to those selections (labels); mixed session-days are grouped per selection.
sd as (select day, session_id, count(*) = 1 as single from sc group by 1, 2),
ss as (
  select sc.day, s.sel as label, sc.session_id, min(sc.first_ts) as first_ts, max(sc.last_ts) as last_ts,
    sum(sc.pageviews) as pageviews, sum(sc.custom) as custom, sum(sc.active) as active
  from sc join sd using (day, session_id) join sels s on (sc.tm >> s.t) & 1 = 1 and (sc.em >> s.v) & 1 = 1
  where not sd.single
  group by 1, 2, 3
  union all
  select sc.day, (-1 - (sc.tm * 8 + sc.em))::smallint, sc.session_id, sc.first_ts, sc.last_ts, sc.pageviews, sc.custom, sc.active
  from sc join sd using (day, session_id) where sd.single
),
labels as (
  select sel as label, sel from sels
  union all
  select (-1 - (c.tm * 8 + c.em))::smallint, s.sel
  from (select distinct tm, em from sc) c join sels s on (c.tm >> s.t) & 1 = 1 and (c.em >> s.v) & 1 = 1
),
st as (
  select x.day, l.sel, sum(x.sessions) as sessions, sum(x.pageviews) as pageviews, sum(x.events) as events,
    sum(x.bounces) as bounces, sum(x.duration_ms) as duration_ms
  from (
    select day, label, count(*) filter (where active > 0) as sessions, sum(pageviews) as pageviews, sum(active) as events,
      count(*) filter (where active > 0 and pageviews = 1 and custom = 0) as bounces,
      coalesce(sum(extract(epoch from last_ts - first_ts) * 1000) filter (where active > 0), 0) as duration_ms
    from ss group by 1, 2
  ) x join labels l on l.label = x.label
  group by 1, 2
),
vt as (
  select x.day, x.visitor_id, bit_or(1 << s.sel) as mask
  from (select distinct day, visitor_id, tm, em from ev where name <> 'engagement') x
  join sels s on (x.tm >> s.t) & 1 = 1 and (x.em >> s.v) & 1 = 1
  group by 1, 2
),
vc as (
  select vt.day, s.sel, count(*) as visitors from vt join sels s on vt.mask & (1 << s.sel) <> 0 group by 1, 2
),
-- Sessions with events outside the day: the flush keeps sessions.started_at/last_activity at the least
-- and greatest ts of the session's events (in the events' transaction), so the row's span covers them.
-- No row (the unassigned '' session, or a writer that keeps none) counts as split: a superset is harmless.
-- (Probing events by (project_id, session_id) in every monthly partition instead cost ~5 s a day at 10M.)
split as (
  select d.day, d.session_id from (select distinct day, session_id from sc) d
  left join sessions s on s.project_id = $1 and s.id = d.session_id
  where s.id is null or s.started_at < (d.day::timestamp at time zone 'UTC')
    or s.last_activity >= ((d.day + 1)::timestamp at time zone 'UTC')
),
irregular as (
  select day, bool_or(v_min <> v_max) as irregular
  from (select day, session_id, min(v_min) as v_min, max(v_max) as v_max from sc group by 1, 2) x group by 1
),
i_totals as (
  insert into rollup_day_totals (project_id, day, sel, visitors, sessions, pageviews, events, bounces, duration_ms)
  select $1, coalesce(st.day, vc.day), coalesce(st.sel, vc.sel), coalesce(vc.visitors, 0), coalesce(st.sessions, 0),
    coalesce(st.pageviews, 0), coalesce(st.events, 0), coalesce(st.bounces, 0), coalesce(st.duration_ms, 0)
  from st full join vc on vc.day = st.day and vc.sel = st.sel
  returning 1
),
i_visitors as (
  insert into rollup_day_visitors (project_id, day, visitor_hash, sel_mask)
  select $1, day, hashtextextended(visitor_id, 0), bit_or(mask)::smallint from vt group by 2, 3
  returning 1
),
i_split as (
  insert into rollup_day_split_sessions (project_id, day, session_id) select $1, day, session_id from split returning 1
),
i_days as (
  insert into rollup_days (project_id, day, irregular)
  select $1, d::date, coalesce(i.irregular, false)
  from generate_series($2::date, $3::date - 1, interval '1 day') d left join irregular i on i.day = d::date
  returning 1
)
select (select count(*) from i_totals)::int as totals, (select count(*) from i_visitors)::int as visitors,
  (select count(*) from i_split)::int as split, (select count(*) from i_days)::int as days

-- Builds the page rollups of one project's UTC days [$2, $3) (after delete_rollup_days, before
-- build_rollup_days records the day built; builder.ts). Per page (events.path): counts, the sessions that touched it (as in metrics.ts
-- groupedSql, the day as the range) and the page facts of pageFactsSql, sequenced within each selection.
-- A number past ingest's bound (MAX_PROP_NUMBER, stored before there was one) counts as absent, so no sum
-- can leave float8. Inside, `sel` is a label: a selection, or (below 0) a class of single-class session-days.
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns pages, visitors (rows inserted)
with ev as materialized (
  select (e.ts at time zone 'UTC')::date as day, e.id, e.session_id, e.visitor_id, e.name, e.ts, e.path,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'timeMs') = 'number' and abs((e.props ->> 'timeMs')::float8) <= 1e15 then (e.props ->> 'timeMs')::float8 end as time_ms,
    case when e.name = 'engagement' and jsonb_typeof(e.props -> 'scrollDepth') = 'number' and abs((e.props ->> 'scrollDepth')::float8) <= 1e15 then (e.props ->> 'scrollDepth')::float8 end as scroll,
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
-- A session-day whose events share one traffic/environment class has the same events, sessions and
-- page facts in every selection that takes the class: it is computed once, under the label -1 - class,
-- and added to each such selection at the end (labels). Mixed session-days are computed per selection.
sd as (
  select day, session_id, min(tm) = max(tm) and min(em) = max(em) as single from ev group by 1, 2
),
es as materialized (
  select ev.*, s.sel from ev join sd using (day, session_id) join sels s on (ev.tm >> s.t) & 1 = 1 and (ev.em >> s.v) & 1 = 1
  where not sd.single
  union all
  select ev.*, (-1 - (ev.tm * 8 + ev.em))::smallint from ev join sd using (day, session_id) where sd.single
),
labels as (
  select sel as label, sel from sels
  union all
  select (-1 - (c.tm * 8 + c.em))::smallint, s.sel
  from (select distinct tm, em from ev) c join sels s on (c.tm >> s.t) & 1 = 1 and (c.em >> s.v) & 1 = 1
),
cmask as (
  select label, bit_or(1 << sel) as mask from labels group by 1
),
ss as (
  select day, sel, session_id, min(ts) as first_ts, max(ts) as last_ts,
    count(*) filter (where name = 'pageview') as pageviews,
    count(*) filter (where name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where name <> 'engagement') as active
  from es group by 1, 2, 3
),
touched as (
  select distinct day, sel, session_id, path from es where name <> 'engagement' and path is not null
),
psess as (
  select t.day, t.sel, t.path, count(*) as sessions, count(*) filter (where s.pageviews = 1 and s.custom = 0) as bounces,
    sum(extract(epoch from s.last_ts - s.first_ts) * 1000) as duration_ms, sum(s.pageviews) as session_pageviews
  from touched t join ss s on s.day = t.day and s.sel = t.sel and s.session_id = t.session_id
  group by 1, 2, 3
),
pcount as (
  select day, sel, path, count(*) filter (where name = 'pageview') as pageviews, count(*) as events
  from es where name <> 'engagement' and path is not null group by 1, 2, 3
),
seq as (
  select es.*, count(*) filter (where name = 'pageview') over (
    partition by sel, session_id, day order by ts, id rows between unbounded preceding and current row) as pv_idx
  from es where name in ('pageview', 'engagement')
),
facts as (
  select day, sel, path, name, ts,
    max(time_ms) over page as reported_ms, max(scroll) over page as scroll_depth,
    min(ts) filter (where name = 'pageview') over (partition by sel, session_id, day order by pv_idx
      range between 1 following and 1 following) as next_ts
  from seq
  window page as (partition by sel, session_id, day, pv_idx)
),
pfacts as (
  select day, sel, path,
    sum(case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end) as time_sum,
    count(case when next_ts is not null then extract(epoch from next_ts - ts) * 1000 else reported_ms end) as time_count,
    sum(scroll_depth) as scroll_sum, count(scroll_depth) as scroll_count
  from facts where name = 'pageview' and path is not null group by 1, 2, 3
),
i_pages as (
  insert into rollup_day_pages (project_id, day, sel, page, pageviews, events, sessions, bounces, duration_ms, session_pageviews,
    time_sum, time_count, scroll_sum, scroll_count)
  select $1, c.day, c.sel, c.path, c.pageviews, c.events, coalesce(p.sessions, 0), coalesce(p.bounces, 0), coalesce(p.duration_ms, 0),
    coalesce(p.session_pageviews, 0), coalesce(f.time_sum, 0), coalesce(f.time_count, 0), coalesce(f.scroll_sum, 0), coalesce(f.scroll_count, 0)
  from (
    select c.day, l.sel, c.path, sum(c.pageviews) as pageviews, sum(c.events) as events
    from pcount c join labels l on l.label = c.sel group by 1, 2, 3
  ) c
  left join (
    select p.day, l.sel, p.path, sum(p.sessions) as sessions, sum(p.bounces) as bounces, sum(p.duration_ms) as duration_ms,
      sum(p.session_pageviews) as session_pageviews
    from psess p join labels l on l.label = p.sel group by 1, 2, 3
  ) p on p.day = c.day and p.sel = c.sel and p.path = c.path
  left join (
    select f.day, l.sel, f.path, sum(f.time_sum) as time_sum, sum(f.time_count) as time_count, sum(f.scroll_sum) as scroll_sum,
      sum(f.scroll_count) as scroll_count
    from pfacts f join labels l on l.label = f.sel group by 1, 2, 3
  ) f on f.day = c.day and f.sel = c.sel and f.path = c.path
  returning 1
),
i_visitors as (
  insert into rollup_day_page_visitors (project_id, day, page, visitor_hash, sel_mask)
  select $1, day, path, hashtextextended(visitor_id, 0), bit_or(m.mask)::smallint
  from (select distinct day, path, visitor_id, sel from es where name <> 'engagement' and path is not null) x
  join cmask m on m.label = x.sel
  group by 2, 3, 4
  returning 1
)
select (select count(*) from i_pages)::int as pages, (select count(*) from i_visitors)::int as visitors

-- Builds the entry and exit page rollups of one project's UTC days [$2, $3). Per day, selection and the
-- session's entry (kind 0) or exit (kind 1) page, as metrics.ts groupedSql counts them with the day as the
-- range: the sessions with a non-engagement event, their pageviews, non-engagement events, bounces, summed
-- duration and the visitors' hashes. Only sessions that lie within the day by their sessions row's span
-- are counted: the others are the ones build_rollup_days lists as split (the same test), which the read
-- recomputes. The builder runs this in a transaction of its own: a write that moves a session out of its
-- day between the two statements also marks the day stale, so a day built from both is never read.
-- The sessions counted are listed with the pages they were counted under (rollup_day_entry_sessions), so
-- a read can take out those a late event touched (src/query/rollup/entry.ts).
-- $1 project_id, $2 first day (date), $3 day after the last (date)
-- returns rows (rows inserted), sessions (sessions listed)
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
sc as (
  select ev.day, ev.session_id, ev.tm, ev.em, min(ev.visitor_id) as visitor_id, min(ev.ts) as first_ts, max(ev.ts) as last_ts,
    count(*) filter (where ev.name = 'pageview') as pageviews,
    count(*) filter (where ev.name not in ('pageview', 'engagement', 'speed', 'error')) as custom,
    count(*) filter (where ev.name <> 'engagement') as active
  from ev
  group by 1, 2, 3, 4
),
-- each session's row read once, not once per selection: its pages, and its span (no row counts as split)
sk as materialized (
  select x.id as session_id, x.entry_page, x.exit_page, x.started_at, x.last_activity from sessions x
  where x.project_id = $1 and x.id in (select session_id from sc)
),
ss as (
  select sc.day, s.sel, sc.session_id, min(sc.visitor_id) as visitor_id, min(sc.first_ts) as first_ts,
    max(sc.last_ts) as last_ts, sum(sc.pageviews) as pageviews, sum(sc.custom) as custom, sum(sc.active) as active
  from sc join sels s on (sc.tm >> s.t) & 1 = 1 and (sc.em >> s.v) & 1 = 1
  join sk on sk.session_id = sc.session_id and sk.started_at >= (sc.day::timestamp at time zone 'UTC')
    and sk.last_activity < ((sc.day + 1)::timestamp at time zone 'UTC')
  group by 1, 2, 3
  having sum(sc.active) > 0
),
keyed as (
  select ss.*, k.kind, k.page
  from ss join sk on sk.session_id = ss.session_id
  cross join lateral (values (0::smallint, sk.entry_page), (1::smallint, sk.exit_page)) as k(kind, page)
  where k.page is not null
),
i_rows as (
  insert into rollup_day_entry (project_id, day, sel, kind, page, sessions, pageviews, events, bounces, duration_ms, visitors)
  select $1, day, sel, kind, page, count(*), sum(pageviews), sum(active), count(*) filter (where pageviews = 1 and custom = 0),
    sum(extract(epoch from last_ts - first_ts) * 1000), array_agg(distinct hashtextextended(visitor_id, 0))
  from keyed group by day, sel, kind, page
  returning 1
),
i_sessions as (
  insert into rollup_day_entry_sessions (project_id, day, session_id, visitor_hash, sel_mask, entry_page, exit_page)
  select $1, ss.day, ss.session_id, hashtextextended(min(ss.visitor_id), 0), bit_or(1 << ss.sel)::smallint,
    min(sk.entry_page), min(sk.exit_page)
  from ss join sk on sk.session_id = ss.session_id
  group by ss.day, ss.session_id
  returning 1
)
select (select count(*) from i_rows)::int as rows, (select count(*) from i_sessions)::int as sessions

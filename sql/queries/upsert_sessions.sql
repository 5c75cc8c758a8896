-- Adds one flush's (or one checkpoint's merged) new events to their sessions: one pre-summed row per session
-- (src/db/flush-rows.ts), added to the stored row, so a session continued by another flush or process keeps
-- adding up. Entry and exit pages follow the earliest and latest pageview (entry_at, exit_at), so the order
-- deltas are applied in does not matter; foldSession applies the same rules in memory.
-- $1 project_id, $2 the rows in the flush's text form (src/db/flush-text.ts sessionRows, as insert_events.sql
--    reads them), sorted by id (rows are locked in key order), the fields in the order below
-- returns day, session: each updated session with each past UTC day it spans, unless the day's rollup
-- already lists the session as split (it then counts the day's part, which events of other days do not
-- change)
with updated as (
insert into sessions as s (project_id, id, visitor_id, started_at, last_activity, pageviews, events,
  entry_page, entry_at, exit_page, exit_at, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign,
  country, device, browser, os, environment, is_internal, is_localhost, bot_score)
select $1, id, visitor_id, started_at, last_activity, pageviews, events,
  entry_page, entry_at, exit_page, exit_at, referrer, referrer_domain, channel, utm_source, utm_medium, utm_campaign,
  country, device, browser, os, environment, is_internal, is_localhost, bot_score
from (
  select a[1] as id, a[2] as visitor_id, a[3]::timestamptz as started_at, a[4]::timestamptz as last_activity,
    a[5]::int as pageviews, a[6]::int as events, a[7] as entry_page, a[8]::timestamptz as entry_at, a[9] as exit_page,
    a[10]::timestamptz as exit_at, a[11] as referrer, a[12] as referrer_domain, a[13] as channel, a[14] as utm_source,
    a[15] as utm_medium, a[16] as utm_campaign, a[17] as country, a[18] as device, a[19] as browser, a[20] as os,
    a[21] as environment, a[22]::boolean as is_internal, a[23]::boolean as is_localhost, a[24]::smallint as bot_score
  from unnest(string_to_array($2::text, E'\n')) as line,
    lateral (
      select case when line ~ E'\\\\[\\\\tnr]' then loupe_unescape_copy(string_to_array(line, E'\t', E'\\N'))
        else string_to_array(line, E'\t', E'\\N') end
      offset 0 -- evaluated once a line, not once a field
    ) as f(a)
) as r
on conflict (project_id, id) do update set
  started_at    = least(s.started_at, excluded.started_at),
  last_activity = greatest(s.last_activity, excluded.last_activity),
  pageviews     = s.pageviews + excluded.pageviews,
  events        = s.events + excluded.events,
  entry_page    = case when excluded.entry_at < coalesce(s.entry_at, 'infinity') then excluded.entry_page else s.entry_page end,
  entry_at      = case when excluded.entry_at < coalesce(s.entry_at, 'infinity') then excluded.entry_at else s.entry_at end,
  exit_page     = case when excluded.exit_at >= coalesce(s.exit_at, '-infinity') then excluded.exit_page else s.exit_page end,
  exit_at       = case when excluded.exit_at >= coalesce(s.exit_at, '-infinity') then excluded.exit_at else s.exit_at end,
  is_internal   = s.is_internal or excluded.is_internal,
  bot_score     = greatest(s.bot_score, excluded.bot_score)
returning id, started_at, last_activity
)
select distinct to_char(d, 'YYYY-MM-DD') as day, u.id as session
from updated u,
  generate_series(date_trunc('day', u.started_at at time zone 'UTC'), date_trunc('day', u.last_activity at time zone 'UTC'), interval '1 day') d
where u.started_at < date_trunc('day', now() at time zone 'UTC') and d < date_trunc('day', now() at time zone 'UTC')
  and not exists (select 1 from rollup_day_split_sessions x where x.project_id = $1 and x.day = d::date and x.session_id = u.id)

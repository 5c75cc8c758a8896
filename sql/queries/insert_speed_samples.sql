-- Keeps the Web Vitals of a flush's new `speed` events for the speed reads and the overview.
-- $1 the rows in the flush's text form (src/db/flush-text.ts, as insert_events.sql reads them): project_id,
--    ts, id, visitor_id, path, route, device, country, environment, lcp, inp, cls, fcp, ttfb, element, bot_score
insert into speed_samples (project_id, ts, event_id, visitor_id, path, route, device, country, environment,
  lcp, inp, cls, fcp, ttfb, element, bot_score)
select a[1], a[2]::timestamptz, a[3], a[4], a[5], coalesce(a[6], a[5]), a[7], a[8], a[9],
  a[10]::float8, a[11]::float8, a[12]::float8, a[13]::float8, a[14]::float8, a[15], a[16]::smallint
from unnest(string_to_array($1::text, E'\n')) as line,
  lateral (
    select case when line ~ E'\\\\[\\\\tnr]' then loupe_unescape_copy(string_to_array(line, E'\t', E'\\N'))
      else string_to_array(line, E'\t', E'\\N') end
    offset 0 -- evaluated once a line, not once a field
  ) as f(a)

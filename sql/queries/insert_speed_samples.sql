-- Keeps the Web Vitals of a flush's new `speed` events for the speed reads and the overview.
-- The rows come one of two ways, the other parameter null: as separated text ($1, src/db/separated-text.ts:
-- the fields in the order below), which the database reads faster than JSON (docs/sql.md); or, when a
-- value holds a separator, as JSON ($2).
-- $1 rows as separated text or null, $2 rows json or null (array of {project_id, ts, id, visitor_id, path,
--    route, device, country, environment, lcp, inp, cls, fcp, ttfb, element, bot_score})
insert into speed_samples (project_id, ts, event_id, visitor_id, path, route, device, country, environment,
  lcp, inp, cls, fcp, ttfb, element, bot_score)
select project_id, ts, id, visitor_id, path, coalesce(route, path), device, country, environment,
  lcp, inp, cls, fcp, ttfb, element, bot_score
from (
  select a[1] as project_id, a[2]::timestamptz as ts, a[3] as id, a[4] as visitor_id, a[5] as path, a[6] as route,
    a[7] as device, a[8] as country, a[9] as environment, a[10]::float8 as lcp, a[11]::float8 as inp,
    a[12]::float8 as cls, a[13]::float8 as fcp, a[14]::float8 as ttfb, a[15] as element, a[16]::smallint as bot_score
  from unnest(string_to_array($1::text, E'\x1e')) as line, string_to_array(line, E'\x1f', E'\x1d') as a
  union all
  select * from json_to_recordset($2::text::json) as j(
    project_id text, ts timestamptz, id text, visitor_id text, path text, route text, device text, country text,
    environment text, lcp float8, inp float8, cls float8, fcp float8, ttfb float8, element text, bot_score smallint)
) as r

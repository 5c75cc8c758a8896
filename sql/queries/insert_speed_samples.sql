-- Keeps the Web Vitals of a flush's new `speed` events for the speed reads and the overview.
-- $1 rows json (array of {project_id, ts, id, visitor_id, path, route, device, country, environment,
--    lcp, inp, cls, fcp, ttfb, element, bot_score})
insert into speed_samples (project_id, ts, event_id, visitor_id, path, route, device, country, environment,
  lcp, inp, cls, fcp, ttfb, element, bot_score)
select project_id, ts, id, visitor_id, path, coalesce(route, path), device, country, environment,
  lcp, inp, cls, fcp, ttfb, element, bot_score
from json_to_recordset($1::text::json) as r(
  project_id text, ts timestamptz, id text, visitor_id text, path text, route text, device text, country text,
  environment text, lcp float8, inp float8, cls float8, fcp float8, ttfb float8, element text, bot_score smallint)

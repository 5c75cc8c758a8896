-- Appends log-stream lines; the database assigns their ids (the stream's cursor), in input order. Each
-- line's JSON is parsed once (json_to_recordset): taking members one by one with ->> from a json value
-- parsed the line again for every member.
-- $1 project_id, $2 lines json (array of {ts?, level, kind, source, message, data, visitor, session})
-- returns id, ts
insert into logs (project_id, ts, level, kind, source, message, data, visitor, session)
select $1, coalesce(l.ts, now()), l.level, l.kind, l.source, l.message, coalesce(l.data::jsonb, '{}'), l.visitor, l.session
from rows from (json_to_recordset($2::text::json) as (
  ts timestamptz, level text, kind text, source text, message text, data json, visitor text, session text
)) with ordinality as l(ts, level, kind, source, message, data, visitor, session, n)
order by l.n
returning id::text, ts

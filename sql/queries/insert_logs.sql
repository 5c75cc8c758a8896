-- Appends log-stream lines; the database assigns their ids (the stream's cursor), in input order.
-- $1 lines json (array of {project_id, ts?, level, kind, source, message, data, visitor, session})
-- returns id, ts
insert into logs (project_id, ts, level, kind, source, message, data, visitor, session)
select j->>'project_id', coalesce((j->>'ts')::timestamptz, now()), j->>'level', j->>'kind', j->>'source', j->>'message',
       coalesce(j->'data', '{}')::jsonb, j->>'visitor', j->>'session'
from json_array_elements($1::text::json) with ordinality as e(j, n)
order by n
returning id::text, ts

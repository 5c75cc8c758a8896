-- Appends log-stream lines; the database assigns their ids (the stream's cursor), in input order. The
-- lines come one of two ways, the other parameter null: as separated text ($2, src/db/separated-text.ts:
-- the fields in the order below), or as JSON ($3, an array of {ts?, level, kind, source, message, data,
-- visitor, session}) when a value holds a separator. JSON is read with json_to_recordset, each line parsed
-- once: taking members one by one with ->> parsed the line again for every member.
-- Ids follow commit order within a project: the statement first takes the project's log lock (an advisory
-- lock, class 7370008, held to the end of the transaction; insert_job_log_lines.sql takes the same), so a
-- second transaction of the project draws its ids only once the first has committed. A reader that sees a
-- line has then seen every line of the project with a smaller id: a cursor never passes one that commits later.
-- $1 project_id, $2 lines as separated text or null, $3 lines json or null
-- returns id, ts
with held as materialized (select 1 from pg_advisory_xact_lock(7370008, hashtext($1))),
input as (
  select a[1]::timestamptz as ts, a[2] as level, a[3] as kind, a[4] as source, a[5] as message, a[6]::json as data,
    a[7] as visitor, a[8] as session, l.n
  from unnest(string_to_array($2::text, E'\x1e')) with ordinality as l(line, n),
    string_to_array(l.line, E'\x1f', E'\x1d') as a
  union all
  select l.ts, l.level, l.kind, l.source, l.message, l.data, l.visitor, l.session, l.n
  from rows from (json_to_recordset($3::text::json) as (
    ts timestamptz, level text, kind text, source text, message text, data json, visitor text, session text
  )) with ordinality as l(ts, level, kind, source, message, data, visitor, session, n)
)
insert into logs (project_id, ts, level, kind, source, message, data, visitor, session)
select $1, coalesce(i.ts, now()), i.level, i.kind, i.source, i.message, coalesce(i.data::jsonb, '{}'), i.visitor, i.session
from input i
where exists (select 1 from held) -- evaluated once, before any row draws its id
order by i.n
returning id::text, ts

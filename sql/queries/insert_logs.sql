-- Appends log-stream lines; the database assigns their ids (the stream's cursor), in input order.
-- Ids follow commit order within a project: the statement first takes the project's log lock (an advisory
-- lock, class 7370008, held to the end of the transaction; insert_job_log_lines.sql takes the same), so a
-- second transaction of the project draws its ids only once the first has committed. A reader that sees a
-- line has then seen every line of the project with a smaller id: a cursor never passes one that commits later.
-- $1 project_id, $2 the lines in the flush's text form (src/db/flush-text.ts, as insert_events.sql reads
--    them): ts (\N: now), level, kind, source, message, data (json), visitor, session
-- returns id, ts
with held as materialized (select 1 from pg_advisory_xact_lock(7370008, hashtext($1))),
input as (
  select a[1]::timestamptz as ts, a[2] as level, a[3] as kind, a[4] as source, a[5] as message,
    a[6]::jsonb as data, a[7] as visitor, a[8] as session, l.n
  from unnest(string_to_array($2::text, E'\n')) with ordinality as l(line, n),
    lateral (
      select case when l.line ~ E'\\\\[\\\\tnr]' then loupe_unescape_copy(string_to_array(l.line, E'\t', E'\\N'))
        else string_to_array(l.line, E'\t', E'\\N') end
      offset 0 -- evaluated once a line, not once a field
    ) as f(a)
)
insert into logs (project_id, ts, level, kind, source, message, data, visitor, session)
select $1, coalesce(i.ts, now()), i.level, i.kind, i.source, i.message, coalesce(i.data, '{}'), i.visitor, i.session
from input i
where exists (select 1 from held) -- evaluated once, before any row draws its id
order by i.n
returning id::text, ts

-- Marks days of a project stale for the rollups (src/query/rollup): called in every flush transaction
-- with events, and by every other writer of a past day or today. Append-only: no existing row is read,
-- locked or rewritten, so a flush never waits for the builder, which deletes the marks it has seen and
-- rebuilds (a mark committed after that delete survives it and keeps the day marked). Today is marked like
-- a past day, since the builder builds it too (its rows as of the build, plus the share of the events
-- marked since); days the database's clock calls future are not: no build of them can exist yet, and the
-- builder waits a few minutes past midnight before it first builds a day, longer than any flush
-- transaction, so it sees every flush stamped before midnight.
-- A whole-day mark ($2) sends reads of the day to events until it is rebuilt; an event mark ($3–$5: the
-- event's id, ts and session) keeps the day readable from its rollup plus the marked events' share
-- (0081_rollup_event_marks.sql); a session mark ($6–$7: a day and a session) says a session's span now
-- reaches into that day.
-- $1 project_id, $2 whole days (date[] as text[]), $3 event ids (text[]), $4 their ts (timestamptz[] as
-- text[]), $5 their session ids (text[]), $6 session marks' days (date[] as text[]), $7 their sessions (text[])
-- returns nothing
insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
select $1, d, null::text, null::timestamptz, null::text from unnest($2::date[]) d
where d <= (now() at time zone 'UTC')::date
union all
select $1, (t at time zone 'UTC')::date, i, t, s from unnest($3::text[], $4::timestamptz[], $5::text[]) x(i, t, s)
where (t at time zone 'UTC')::date <= (now() at time zone 'UTC')::date
union all
select $1, d, null, null, s from unnest($6::date[], $7::text[]) x(d, s)
where d <= (now() at time zone 'UTC')::date

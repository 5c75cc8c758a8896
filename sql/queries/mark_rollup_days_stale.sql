-- Marks days of a project stale for the rollups (src/query/rollup): called in every flush transaction
-- with events, and by every other writer of a past day or today. Append-only: no existing row is locked or
-- rewritten (the days' whole marks are looked for, below), so a flush never waits for the builder, which deletes the marks it has seen and
-- rebuilds (a mark committed after that delete survives it and keeps the day marked). Today is marked like
-- a past day, since the builder builds it too (its rows as of the build, plus the share of the events
-- marked since); days the database's clock calls future are not: no build of them can exist yet, and the
-- builder waits a few minutes past midnight before it first builds a day, longer than any flush
-- transaction, so it sees every flush stamped before midnight.
-- A whole-day mark ($2) sends reads of the day to events until it is rebuilt; an event mark ($3–$5: the
-- event's id, ts and session) keeps the day readable from its rollup plus the marked events' share
-- (0081_rollup_event_marks.sql); a session mark ($6–$7: a day and a session) says a session's span now
-- reaches into that day. A day already marked whole takes a whole mark rather than event marks: its
-- rebuild reads every event anyway, and under steady traffic (a burst of today's events every few
-- flushes) one row a flush is written instead of up to 64. That is safe whatever a build does meanwhile:
-- a whole mark says as much as any event mark, and one committed after a build's first step survives it.
-- $1 project_id, $2 whole days (date[] as text[]), $3 event ids (text[]), $4 their ts (timestamptz[] as
-- text[]), $5 their session ids (text[]), $6 session marks' days (date[] as text[]), $7 their sessions (text[])
-- returns nothing
with ev as (
  select i, t, s, (t at time zone 'UTC')::date as d from unnest($3::text[], $4::timestamptz[], $5::text[]) x(i, t, s)
  where (t at time zone 'UTC')::date <= (now() at time zone 'UTC')::date
),
whole as (
  select d from unnest($2::date[]) d
  where d <= (now() at time zone 'UTC')::date
  union
  select ev.d from ev
  where exists (
    select 1 from rollup_stale_days w
    where w.project_id = $1 and w.day = ev.d and w.event_id is null and w.session_id is null)
)
insert into rollup_stale_days (project_id, day, event_id, ts, session_id)
select $1, d, null::text, null::timestamptz, null::text from whole
union all
select $1, d, i, t, s from ev where d not in (select d from whole)
union all
select $1, d, null, null, s from unnest($6::date[], $7::text[]) x(d, s)
where d <= (now() at time zone 'UTC')::date

-- The last statement of a fold (src/query/rollup/fold.ts): deletes the single-event and session marks of
-- the day that the fold's statements saw (the transaction is repeatable read: a mark committed since is
-- not seen, so it stays, and so does its event's share, which the next fold takes) and stamps the fold.
-- $1 project_id, $2 day (date)
-- returns marks (marks deleted)
with m as (
  delete from rollup_stale_days where project_id = $1 and day = $2::date and session_id is not null returning 1
),
r as (update rollup_days set folded_at = now() where project_id = $1 and day = $2::date)
select (select count(*) from m)::int as marks

-- A rebuilt day leaves the pending list, unless it was marked again after the rebuild's lock was taken.
-- $1 project_id, $2 day (date), $3 marked_at seen by the rebuild, as text (a Date would drop its microseconds)
-- returns nothing useful
delete from rollup_pending_days where project_id = $1 and day = $2::date and marked_at <= $3::text::timestamptz

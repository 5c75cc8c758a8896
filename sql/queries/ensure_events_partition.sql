-- Makes sure the monthly events partition for a timestamp exists.
-- $1 at timestamptz
select loupe_ensure_events_partition($1) as name

-- Reads one server state value.
-- $1 key
select value from server_state where key = $1

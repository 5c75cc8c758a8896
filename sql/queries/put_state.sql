-- Writes one server state value once; returns nothing when the key already existed.
-- $1 key, $2 value jsonb
insert into server_state (key, value) values ($1, $2) on conflict (key) do nothing returning key

-- Creates or refreshes a SQL-route login role and its grants (sql/migrations/0025_analyst_schema.sql), one
-- process at a time: two servers altering one role at once would fail with "tuple concurrently updated".
-- $1 role name, $2 password
select pg_advisory_xact_lock(7370034), loupe_sql_prepare_role($1, $2)

-- A process's heartbeat, so that others know its journal rows are still in hand.
-- $1 owner
insert into fold_owners (owner) values ($1) on conflict (owner) do update set seen_at = now()

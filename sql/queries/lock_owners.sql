-- Locks the owners' rows for the rest of the transaction, so two changes cannot each leave the other
-- as the last owner and then both go through.
-- returns id
select id from dashboard_users where role = 'owner' order by id for update

-- Removes a member; their sessions go with them (on delete cascade).
-- $1 id
-- returns id
delete from dashboard_users where id = $1 returning id

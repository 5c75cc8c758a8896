-- The owners' ids (the start-up hint asks whether there is one).
-- returns id
select id from dashboard_users where role = 'owner'

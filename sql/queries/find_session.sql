-- One session's header.
-- $1 project_id, $2 session id
select s.id, s.visitor_id, s.started_at, s.last_activity, s.bot_score, v.bot_signals
from sessions s left join visitors v on v.project_id = s.project_id and v.id = s.visitor_id
where s.project_id = $1 and s.id = $2

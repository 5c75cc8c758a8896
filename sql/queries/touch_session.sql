-- Records a session's use (on the session and its member) and slides its end: once it was last extended
-- over a day ago, it runs 30 days from now again.
-- $1 session id
-- returns expires_at
with s as (
  update auth_sessions set last_seen_at = now(),
    expires_at = case when expires_at < now() + interval '29 days' then now() + interval '30 days' else expires_at end
  where id = $1 and expires_at > now()
  returning user_id, expires_at
), u as (
  update dashboard_users set last_seen_at = now() where id = (select user_id from s)
)
select expires_at from s

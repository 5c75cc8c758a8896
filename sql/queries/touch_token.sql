-- Records when a token was last used (at most once a minute per token, by the caller's throttle).
-- $1 id
update api_tokens set last_used_at = now() where id = $1

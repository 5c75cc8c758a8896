-- Takes a sign-in in progress: deletes it and returns it if it has not expired (one use only).
-- $1 id (hash of the flow cookie's value)
-- returns state, nonce, code_verifier, redirect
delete from auth_flows where id = $1 and expires_at > now() returning state, nonce, code_verifier, redirect

-- Records a sign-in in progress (deleted by its callback, or by the sessions job once expired).
-- $1 id (hash of the flow cookie's value), $2 state, $3 nonce, $4 code_verifier, $5 redirect, $6 expires_at
insert into auth_flows (id, state, nonce, code_verifier, redirect, expires_at) values ($1, $2, $3, $4, $5, $6)

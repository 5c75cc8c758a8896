-- Sign-ins in progress: what the callback must check (state, nonce, the PKCE verifier) and where it
-- sends the browser afterwards. A row is found by the hash of the flow cookie's value, so the flow is
-- bound to the browser that started it, and it is deleted on first use (a replayed callback finds none).
create table auth_flows (
  id            text primary key,
  state         text not null,
  nonce         text not null,
  code_verifier text not null,
  redirect      text not null,
  created_at    timestamptz not null default now(),
  expires_at    timestamptz not null
);
create index auth_flows_expires on auth_flows (expires_at);

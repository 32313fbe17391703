-- OAuth grants: one row per successful code exchange; its refresh-token family and access tokens hang off it,
-- so a replayed code, a reused refresh token or a disconnected app revokes everything issued from the grant.

create table oauth_grants (
  id uuid primary key default gen_random_uuid(),
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  code_hash text unique,
  scopes text[] not null,
  resource text,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_grants_client_user on oauth_grants (client_id, user_id);

-- A refresh token's family is its grant.
alter table oauth_refresh_tokens
  add constraint oauth_refresh_tokens_family_grant
  foreign key (family_id) references oauth_grants (id) on delete cascade;

create index oauth_codes_expires on oauth_codes (expires_at);
create index browser_sessions_expires on browser_sessions (expires_at);

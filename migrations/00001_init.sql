-- Portico base schema: platform users and agents, OAuth state, workspaces, members, roles and API keys.

-- Platform accounts ---------------------------------------------------------------------------------------

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null check (length(email) between 3 and 320),
  name text not null default '',
  picture text,
  password_hash text not null,
  plan text not null default 'free',
  credits integer not null default 0 check (credits >= 0),
  email_verified boolean not null default true,
  created_at timestamptz not null default now()
);
create unique index users_email_lower on users (lower(email));

create table agents (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

create table user_agents (
  user_id uuid not null references users (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  unlocked_at timestamptz not null default now(),
  primary key (user_id, agent_id)
);

create table agent_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  agent_id uuid not null references agents (id) on delete cascade,
  plan text not null check (length(plan) between 1 and 100),
  status text not null default 'active' check (status in ('active', 'trialing', 'past_due', 'canceled')),
  current_period_end timestamptz not null,
  created_at timestamptz not null default now(),
  unique (user_id, agent_id)
);

-- OAuth 2.0 / OpenID Connect ------------------------------------------------------------------------------

create table oauth_clients (
  client_id text primary key check (client_id like 'pcl\_%'),
  secret_hash text,
  name text not null check (length(name) between 1 and 200),
  redirect_uris text[] not null,
  grant_types text[] not null default '{authorization_code}',
  scopes text[] not null,
  token_endpoint_auth_method text not null default 'none'
    check (token_endpoint_auth_method in ('none', 'client_secret_post', 'client_secret_basic')),
  client_uri text,
  logo_uri text,
  contacts text[] not null default '{}',
  self_registered boolean not null default true,
  created_at timestamptz not null default now(),
  check ((token_endpoint_auth_method = 'none') = (secret_hash is null))
);

create table oauth_codes (
  code_hash text primary key,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  redirect_uri text not null,
  scopes text[] not null,
  resource text,
  nonce text,
  code_challenge text not null,
  auth_time timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz,
  created_at timestamptz not null default now()
);

create table oauth_refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  family_id uuid not null,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  scopes text[] not null,
  resource text,
  auth_time timestamptz not null,
  code_hash text,
  expires_at timestamptz not null,
  rotated_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index oauth_refresh_tokens_family on oauth_refresh_tokens (family_id);
create index oauth_refresh_tokens_client_user on oauth_refresh_tokens (client_id, user_id);
create index oauth_refresh_tokens_code on oauth_refresh_tokens (code_hash) where code_hash is not null;

create table oauth_consents (
  user_id uuid not null references users (id) on delete cascade,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  scopes text[] not null,
  granted_at timestamptz not null default now(),
  primary key (user_id, client_id)
);

create table signing_keys (
  kid text primary key,
  alg text not null default 'RS256',
  public_jwk jsonb not null,
  private_jwk_encrypted text not null,
  created_at timestamptz not null default now(),
  -- set when a newer key takes over; the key stays in JWKS until its last token has expired
  retired_at timestamptz
);

-- One browser holds one session cookie; a session may carry several signed-in accounts.
create table browser_sessions (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create table browser_session_accounts (
  session_id uuid not null references browser_sessions (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  auth_time timestamptz not null default now(),
  last_used_at timestamptz not null default now(),
  primary key (session_id, user_id)
);

-- Fixed-window counters shared by every instance (registration per IP, sign-in failures per account and IP).
create table rate_limits (
  bucket text not null,
  window_start timestamptz not null,
  count integer not null default 0,
  primary key (bucket, window_start)
);

-- Workspaces ----------------------------------------------------------------------------------------------

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  modules text[] not null default '{}',
  created_at timestamptz not null default now()
);

create table companies (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now(),
  unique (workspace_id, id)
);

create table workspace_members (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'manager', 'accounting', 'member', 'guest')),
  -- null: every company of the workspace; otherwise only these
  company_ids uuid[],
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index workspace_members_user on workspace_members (user_id);

-- Which roles may use each tool area; a missing row means the built-in default (lib/mcp/permissions.ts).
create table role_permissions (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  area text not null,
  roles text[] not null,
  primary key (workspace_id, area)
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  key_hash text not null unique,
  -- the first characters of the key, shown in lists so a person can tell keys apart
  key_prefix text not null,
  kind text not null check (kind in ('user', 'workspace', 'internal')),
  user_id uuid references users (id) on delete cascade,
  company_id uuid,
  name text not null default '' check (length(name) <= 200),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  check (kind = 'workspace' or user_id is not null),
  foreign key (workspace_id, company_id) references companies (workspace_id, id) on delete cascade
);
create index api_keys_workspace on api_keys (workspace_id);

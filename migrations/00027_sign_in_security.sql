-- Sign-in security (issue 29): how each account in a browser signed in, the browser's device and idle clock,
-- second factors (one-time codes, recovery codes, passkeys), the password's age, workspace and client policy,
-- and the person's own security log. docs/security.md says why each exists.

-- Browser sessions: the idle clock (SESSION_IDLE_MINUTES) and what the person's session list shows.
alter table browser_sessions
  add column last_seen_at timestamptz not null default now(),
  add column user_agent text not null default '' check (length(user_agent) <= 300),
  add column ip text not null default '' check (length(ip) <= 64);
-- How the account signed in on this browser, as RFC 8176 `amr` values (lib/security/amr.ts).
alter table browser_session_accounts add column amr text[] not null default '{pwd}';

-- Codes and refresh tokens carry the sign-in's methods into ID tokens (acr, amr).
alter table oauth_codes add column amr text[] not null default '{pwd}';
alter table oauth_refresh_tokens add column amr text[] not null default '{pwd}';

-- RP-Initiated Logout 1.0: where a client may send the browser after sign-out.
alter table oauth_clients add column post_logout_redirect_uris text[] not null default '{}';

-- Passwords: when it was last set, and whether the person must choose a new one at the next sign-in (set when a
-- password that no longer meets the policy is used to sign in).
alter table users
  add column password_changed_at timestamptz,
  add column password_change_required boolean not null default false;

-- A workspace owner or admin can require two-step sign-in for its members.
alter table workspaces add column require_two_factor boolean not null default false;

-- One-time codes (RFC 6238): the secret sealed with SECRET_KEY (purpose "totp-secret"); confirmed once the
-- person typed a first code; last_step is the newest time step accepted, so no code is used twice.
create table user_totp (
  user_id uuid primary key references users (id) on delete cascade,
  secret_sealed text not null check (length(secret_sealed) <= 500),
  confirmed_at timestamptz,
  last_step bigint not null default 0,
  created_at timestamptz not null default now()
);

-- Recovery codes: shown once, stored as SHA-256 hashes, each used once.
create table user_recovery_codes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  created_at timestamptz not null default now(),
  unique (user_id, code_hash)
);

-- Passkeys (WebAuthn credentials).
create table user_passkeys (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  credential_id text not null unique check (length(credential_id) <= 1400),
  public_key bytea not null,
  sign_count bigint not null default 0,
  transports text[] not null default '{}',
  name text not null check (length(name) between 1 and 100),
  device_type text not null default 'singleDevice',
  backed_up boolean not null default false,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index user_passkeys_user on user_passkeys (user_id);

-- The person's security log (lib/security/events.ts): what they see on /account/security. Ids and kinds only,
-- never a secret; the address and browser as the request showed them.
create table security_events (
  id bigint generated always as identity primary key,
  user_id uuid not null references users (id) on delete cascade,
  kind text not null check (length(kind) <= 60),
  at timestamptz not null default now(),
  ip text not null default '' check (length(ip) <= 64),
  user_agent text not null default '' check (length(user_agent) <= 300),
  detail jsonb not null default '{}'
);
create index security_events_user_at on security_events (user_id, at desc);

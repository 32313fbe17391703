-- Approval requests (issue 23): a person asks the operators to let an app that registered itself (or a
-- metadata-document app) use `workspace`; operators decide on /operator pages or with `deno task admin client
-- approve|deny`. Operators are platform accounts with the operator flag.
alter table users add column operator boolean not null default false;

-- One request per app and person (asking again refreshes it): what was asked, where, and what became of it.
create table oauth_approval_requests (
  id uuid primary key default gen_random_uuid(),
  client_id text not null references oauth_clients (client_id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  company_id uuid references companies (id) on delete cascade,
  scopes text[] not null,
  note text not null default '' check (length(note) <= 500),
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied')),
  created_at timestamptz not null default now(),
  -- the last time the person asked (a repeated ask of a pending request moves it, nothing else)
  asked_at timestamptz not null default now(),
  decided_at timestamptz,
  decided_by uuid references users (id) on delete set null,
  unique (client_id, user_id)
);
create index oauth_approval_requests_pending on oauth_approval_requests (asked_at desc) where status = 'pending';
create index oauth_approval_requests_user on oauth_approval_requests (user_id) where status = 'pending';

-- Metadata-document URL prefixes the operators trust from the browser or CLI (TRUSTED_CLIENT_ID_PREFIXES is the
-- configuration's own list; both count).
create table oauth_trusted_prefixes (
  -- shape checked in lib/oauth/client_id_url.ts isClientIdPrefix (https, or loopback http in development)
  prefix text primary key check (length(prefix) between 9 and 500),
  created_at timestamptz not null default now(),
  created_by uuid references users (id) on delete set null
);

-- Every operator decision, from a page or the CLI. No foreign keys: the trail outlives what it names.
create table operator_decisions (
  id bigint generated always as identity primary key,
  at timestamptz not null default now(),
  -- the operator's account; null for the CLI (whoever had a shell on the server)
  operator_id uuid,
  via text not null check (via in ('page', 'cli')),
  action text not null check (action in ('approve', 'deny', 'trust', 'untrust', 'trust_prefix', 'untrust_prefix',
                                         'grant_operator', 'revoke_operator')),
  request_id uuid,
  client_id text,
  -- a prefix (trust_prefix, untrust_prefix) or the account whose operator flag changed
  subject text
);
create index operator_decisions_at on operator_decisions (at desc);

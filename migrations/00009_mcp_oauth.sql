-- /mcp as a protected resource of Portico's own authorization server (issue 12): a grant carries the workspace
-- (and optional company) chosen on consent; operators may trust self-registered clients; client ids may be
-- metadata document URLs; people can be disabled; audit rows name the OAuth client.

-- Trusted: a self-registered client the operator approved for `workspace` (admin client trust/untrust).
alter table oauth_clients add column trusted boolean not null default false;
-- Set for clients whose client_id is a metadata document URL: when its document was last fetched.
alter table oauth_clients add column metadata_fetched_at timestamptz;
alter table oauth_clients drop constraint oauth_clients_client_id_check;
alter table oauth_clients add constraint oauth_clients_client_id_check
  check (client_id like 'pcl\_%' or client_id like 'https://%' or client_id like 'http://%');

-- The workspace (and company) chosen on the consent page travels code → grant; null without `workspace`.
alter table oauth_codes add column workspace_id uuid references workspaces (id) on delete cascade;
alter table oauth_codes add column company_id uuid;
alter table oauth_grants add column workspace_id uuid references workspaces (id) on delete cascade;
alter table oauth_grants add column company_id uuid;
alter table oauth_grants
  add constraint oauth_grants_company foreign key (workspace_id, company_id)
  references companies (workspace_id, id) on delete cascade;
-- Written at most once a minute per grant by /mcp, shown on Connected apps.
alter table oauth_grants add column last_used_at timestamptz;
-- The choice is remembered with the consent, so a later authorization without the page uses the same place.
alter table oauth_consents add column workspace_id uuid references workspaces (id) on delete set null;
alter table oauth_consents add column company_id uuid;

-- A disabled person cannot sign in, refresh, or reach /mcp by key or token.
alter table users add column disabled_at timestamptz;

-- Which OAuth client acted, for calls made with an access token (key_id is null then).
alter table audit_log add column client_id text;

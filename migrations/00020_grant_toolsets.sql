-- Toolsets and read-only access for OAuth grants (issue 16): chosen on the consent page next to the workspace,
-- they travel code → grant like the workspace choice, and are remembered with the consent so a later
-- authorization without the page gets the same limits. null toolsets = every toolset; names are checked by the
-- application (lib/mcp/toolsets.ts TOOLSETS), which owns the list. /mcp reads the grant's columns in its one
-- query; a connection may narrow further (/mcp?toolsets=…&readonly=1), never widen.
alter table oauth_codes
  add column toolsets text[],
  add column read_only boolean not null default false;
alter table oauth_grants
  add column toolsets text[],
  add column read_only boolean not null default false;
alter table oauth_consents
  add column toolsets text[],
  add column read_only boolean not null default false;

-- Toolsets and read-only access on API keys (issue 16): a key may be limited to some domains and to tools that
-- only read. null toolsets = every toolset. A connection may narrow further (/mcp?toolsets=…&readonly=1),
-- never widen. Names are checked by the application (lib/mcp/toolsets.ts TOOLSETS), which owns the list.
alter table api_keys
  add column toolsets text[],
  add column read_only boolean not null default false;

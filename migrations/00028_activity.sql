-- Activity pages (issue 30 point 2: /account/activity, /account/workspaces/<id>/activity): what each connected
-- app and API key did. The audit row gains what the pages show and nothing of the arguments' free text:
--   grant_id   the OAuth grant behind an access token (key_id names the API key otherwise)
--   reason     why a call was refused or failed: the error's code word, and the message only for rule refusals
--              built from the tool and the caller (never from arguments) — lib/mcp/call_detail.ts
--   records    the records a call named or created: `field:uuid` (e.g. `projectId:…`), UUID-shaped values only,
--              at most 10
--   confirmed  the call ran after the person confirmed it (MCP 2026 input_required answered yes)
-- Adding nullable columns and a constant default rewrites nothing.
alter table audit_log
  add column grant_id uuid,
  add column reason text,
  add column records text[],
  add column confirmed boolean not null default false;

-- Newest first, keyset-paged by (at, id), for one person (their own page) or one workspace (its admins' page),
-- and the same with each filter that can be rare (an app, a key, a tool, an outcome): each page query walks one
-- of these in order and stops after 51 rows. Partial on the scope column: refused requests without a caller
-- (all columns null) are never listed here.
create index audit_log_user_at on audit_log (user_id, at desc, id desc) where user_id is not null;
create index audit_log_user_client_at on audit_log (user_id, client_id, at desc, id desc)
  where user_id is not null and client_id is not null;
create index audit_log_user_tool_at on audit_log (user_id, tool, at desc, id desc) where user_id is not null;
create index audit_log_user_outcome_at on audit_log (user_id, outcome, at desc, id desc) where user_id is not null;
create index audit_log_key_at on audit_log (key_id, at desc, id desc) where key_id is not null;
create index audit_log_ws_at on audit_log (workspace_id, at desc, id desc) where workspace_id is not null;
create index audit_log_ws_client_at on audit_log (workspace_id, client_id, at desc, id desc)
  where workspace_id is not null and client_id is not null;
create index audit_log_ws_tool_at on audit_log (workspace_id, tool, at desc, id desc) where workspace_id is not null;
create index audit_log_ws_outcome_at on audit_log (workspace_id, outcome, at desc, id desc)
  where workspace_id is not null;
-- The apps a filter offers and an admin may disconnect: a person's or a workspace's grants.
create index oauth_grants_user_client on oauth_grants (user_id, client_id);
create index oauth_grants_workspace_client on oauth_grants (workspace_id, client_id) where workspace_id is not null;
-- audit_log_ws_at serves everything this one did (admin audit list --workspace).
drop index audit_log_workspace_at;

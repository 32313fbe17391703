-- Audit log of the tool server: one row per tools/call and per refused call; never arguments or results.
-- No foreign keys on purpose: the trail outlives the keys, users and workspaces it mentions.
create table audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  workspace_id uuid,
  key_id uuid,
  user_id uuid,
  tool text not null,
  outcome text not null check (outcome in ('ok', 'error', 'denied', 'unavailable', 'invalid', 'crash')),
  duration_ms numeric(10, 2) not null,
  request_id text not null
);
create index audit_log_workspace_at on audit_log (workspace_id, at desc);
create index audit_log_at on audit_log (at desc);

-- MCP 2026-07-28 confirmations (lib/mcp/confirm_state.ts): a requestState is usable once. The retry that runs the
-- tool first records the state's random nonce here in one statement (`on conflict do nothing`), so of two
-- parallel retries exactly one inserts and runs; the other finds the nonce and runs nothing. A row is useless
-- once its state has expired (5 minutes after it was minted); expired rows are swept as new ones are written.
create table mcp_spent_request_states (
  nonce text primary key,
  expires_at timestamptz not null
);
create index mcp_spent_request_states_expires on mcp_spent_request_states (expires_at);

-- The audit trail names the two new ends of a tools/call: `asked` (input_required: the person was asked, nothing
-- ran yet) and `declined` (the person declined or cancelled: nothing ran).
alter table audit_log drop constraint audit_log_outcome_check;
alter table audit_log add constraint audit_log_outcome_check
  check (outcome in ('ok', 'error', 'denied', 'unavailable', 'invalid', 'crash', 'asked', 'declined'));

-- MCP 2026-07-28 confirmations (lib/mcp/confirm_state.ts): a requestState is usable once. The retry that runs the
-- tool first records the state's random nonce here in one statement (`on conflict do nothing`), so of two
-- parallel retries exactly one inserts and runs; the other finds the nonce and runs nothing. A row is useless
-- once its state has expired (5 minutes after it was minted); expired rows are swept as new ones are written.
create table mcp_spent_request_states (
  nonce text primary key,
  expires_at timestamptz not null
);
create index mcp_spent_request_states_expires on mcp_spent_request_states (expires_at);

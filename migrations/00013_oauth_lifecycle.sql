-- OAuth lifecycle (issue 14): refresh retries within a grace window, an absolute family life, and the sweeper.

-- The token a refresh token was rotated from (null for the first of a family). A retry within the grace window
-- adds a sibling under the same parent; the first sibling used wins and the others are revoked.
alter table oauth_refresh_tokens add column parent_id uuid;
create index oauth_refresh_tokens_parent on oauth_refresh_tokens (parent_id) where parent_id is not null;
-- The sweeper's searches.
create index oauth_refresh_tokens_expires on oauth_refresh_tokens (expires_at);
create index oauth_grants_created on oauth_grants (created_at);
create index oauth_codes_client on oauth_codes (client_id);
create index rate_limits_window on rate_limits (window_start);

-- When the client last obtained tokens (code exchange, or a refresh; written at most once an hour), so the
-- sweeper can tell a self-registered client nobody uses from one in use.
alter table oauth_clients add column last_used_at timestamptz;
create index oauth_clients_unused on oauth_clients (coalesce(last_used_at, created_at))
  where self_registered and not trusted;

-- Password reset links (lib/password_reset.ts): one live link per person (a new one replaces the old), stored
-- only as the SHA-256 hash of the random token; spent by deleting the row in one statement (single use).
create table password_resets (
  user_id uuid primary key references users (id) on delete cascade,
  token_hash text not null unique,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);

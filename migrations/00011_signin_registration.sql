-- Sign-in brake (progressive delay), exact registration limits, and registration de-duplication.

-- When a rate_limits bucket last counted an attempt: the sign-in brake's wait grows from that moment.
alter table rate_limits add column last_at timestamptz;

-- Limits kept as one "theoretical arrival time" per bucket (GCRA, lib/oauth/rate_limit.ts): the bucket is
-- empty again at `tat`. Gives an exact Retry-After, and a refused attempt changes nothing.
create table rate_buckets (
  bucket text primary key,
  tat timestamptz not null
);
create index rate_buckets_tat on rate_buckets (tat);

-- Which source registered which metadata (a hash of both), so an identical public registration from the same
-- source within a day gets the existing client instead of a new one.
create table oauth_client_registrations (
  fingerprint text not null,
  client_id text not null references oauth_clients (client_id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (fingerprint, client_id)
);
create index oauth_client_registrations_recent on oauth_client_registrations (fingerprint, created_at desc);

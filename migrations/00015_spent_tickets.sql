-- Sign-in tickets that carry an account (the resume URL after sign-in or account choice, the consent form) are
-- single use: the first use records the ticket's random id here, in one statement; a second use finds it.
-- Rows are useless once the ticket itself has expired (30 min after the authorization request arrived).
create table oauth_spent_tickets (
  jti text primary key,
  expires_at timestamptz not null
);
create index oauth_spent_tickets_expires on oauth_spent_tickets (expires_at);
